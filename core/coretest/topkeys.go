package coretest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
)

// runTopKeys checks core.WithTopKeys on the store: takes are counted per
// key, admitted and denied apart, over the last Span only.
func runTopKeys(t *testing.T, newStore NewStore) {
	ctx := context.Background()
	p, err := core.NewPolicy(fmt.Sprintf("top#%d", policySeq.Add(1)),
		core.Limit{Name: "l", Algorithm: core.GCRA{Rate: core.PerHour(3), Burst: 3}})
	requireNoError(t, err)
	clk := NewClock(T0)
	l, err := core.NewLimiter(p, core.WithStore(newStore(t)), core.WithClock(clk),
		core.WithTopKeys(core.TopKeysOptions{Capacity: 8, Span: 5 * time.Minute, Intervals: 5}))
	requireNoError(t, err)
	for range 5 {
		_, err := l.Allow(ctx, "heavy") // 3 admitted, 2 denied
		requireNoError(t, err)
	}
	_, err = l.Allow(ctx, "light")
	requireNoError(t, err)
	_, err = l.Peek(ctx, "peeked", 1)
	requireNoError(t, err)

	top, ok := l.TopKeys(10)
	requireTrue(t, ok, "the limiter has a sketch")
	assertEqual(t, int64(6), top.Takes, "takes counted")
	assertEqual(t, []core.KeyCount{
		{Key: "heavy", Count: 5, Admitted: 3, Denied: 2},
		{Key: "light", Count: 1, Admitted: 1},
	}, top.Keys, "top keys (a peek is not counted)")
	top, _ = l.TopKeys(1)
	assertEqual(t, 1, len(top.Keys), "TopKeys(1)")

	// Five minutes on, the first interval has left the span.
	clk.Advance(4 * time.Minute)
	_, err = l.Allow(ctx, "light")
	requireNoError(t, err)
	top, _ = l.TopKeys(10)
	assertEqual(t, int64(7), top.Takes, "within the span")
	clk.Advance(time.Minute + time.Second)
	top, _ = l.TopKeys(10)
	assertEqual(t, []core.KeyCount{{Key: "light", Count: 1, Admitted: 1}}, top.Keys, "the first interval has left the span")
}
