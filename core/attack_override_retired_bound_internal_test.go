package core

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestAttackOverrideRetiredUnbounded: o.retired keeps the last
// MaxPolicies limiters replaced, bounding the memory of a name whose
// shapes take turns. A replaced limiter whose name took back a forgotten
// one (o.forgot) was appended to it untrimmed: each forget and return of
// such a name grew it by one, for good (8 cycles, MaxPolicies 2: 7).
func TestAttackOverrideRetiredUnbounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := &idleClock{time.Unix(1_000_000, 0)}
	shapeA := MustPolicy("c", Limit{Name: "w", Algorithm: FixedWindow{Quota: 10, Window: time.Hour}})
	n := 0 // a new shape B each cycle, which no limiter kept accepts
	provider := func(_ context.Context, key string) (*Policy, bool, error) {
		switch key[0] {
		case 'a':
			return shapeA, true, nil
		case 'b':
			return MustPolicy("c", Limit{Name: "w", Algorithm: FixedWindow{Quota: 10, Window: time.Duration(n+2) * time.Hour}}), true, nil
		}
		return MustPolicy(key, Limit{Algorithm: FixedWindow{Quota: 1, Window: time.Second}}), true, nil
	}
	const maxPolicies = 2
	o, err := NewOverrides(MustPolicy("default", Limit{Algorithm: FixedWindow{Quota: 100, Window: time.Hour}}), provider,
		OverrideOptions{MaxPolicies: maxPolicies, TTL: time.Minute}, WithClock(clk))
	require.NoError(t, err)
	for i := range 8 {
		n = i
		for j, k := range []string{"b", "a"} { // c: a new B, then A again
			_, err := o.Peek(ctx, fmt.Sprint(k, i, j), 1)
			require.NoError(t, err)
		}
		for j := range 2 { // two other names: c forgotten
			clk.t = clk.t.Add(61 * time.Second)
			_, _ = o.Peek(ctx, fmt.Sprint("x", i, j), 1)
		}
		clk.t = clk.t.Add(61 * time.Second)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	require.LessOrEqual(t, len(o.retired), maxPolicies)
	require.LessOrEqual(t, len(o.forgot), maxPolicies)
}
