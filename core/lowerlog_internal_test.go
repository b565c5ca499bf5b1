package core

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type stepClock struct{ t time.Time }

func (c *stepClock) Now() time.Time { return c.t }

// TestRefundLogKeepsOnlyWhatMayMatter: a hot key refunding every take (a
// count-only-failures route of successes) keeps in the refund log only the
// refunds of about the last burst's span, not a refund window's worth:
// 20,000 take-and-refund pairs, 1 ms apart, on GCRA 100/s burst 10 (a
// take's hold is at most 100 ms) leave at most 101 entries, where the
// window (a minute) would keep all 20,000 and each refund would scan them.
func TestRefundLogKeepsOnlyWhatMayMatter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := &stepClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	p := MustPolicy("p", Limit{Name: "l", Algorithm: GCRA{Rate: PerSecond(100), Burst: 10}})
	l, err := NewLimiter(p, WithClock(clk))
	require.NoError(t, err)
	for range 20_000 {
		r, err := l.Allow(ctx, "hot")
		require.NoError(t, err)
		require.True(t, r.Allowed)
		back, err := l.Refund(ctx, "hot", r)
		require.NoError(t, err)
		require.Equal(t, int64(9), back.Remaining, "each refund gives its unit back")
		clk.t = clk.t.Add(time.Millisecond)
	}
	n := 0
	for i := range l.lowers.shards {
		n += l.lowers.shards[i].n
	}
	require.LessOrEqual(t, n, 101)
}
