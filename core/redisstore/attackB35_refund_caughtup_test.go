package redisstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/stretchr/testify/require"
)

// TestAttackRefundAfterClockCaughtUp: on Redis TIME (LoadOnTime), take A
// at T, the clock back 30 s, a decision settles the key (its state moves
// back 30 s, seen T-30), the clock runs on past T, a take C writes seen
// past A's instant again, and then A is refunded: retaken finds A's
// instant before seen and after no step, and measures A's hold from T,
// not from T-30 where the state now holds it: 30 s more than A had left.
// At 1 a minute, burst 1, a take D 31 s after C was admitted (2 in 31 s).
func TestAttackRefundAfterClockCaughtUp(t *testing.T) {
	t.Parallel()
	c := startOnTime(t)
	ctx := context.Background()
	for i, alg := range spansOfOnePerMinute() {
		t.Run(fmt.Sprint(alg), func(t *testing.T) {
			t.Parallel()
			clk := coretest.NewClock(coretest.T0.Add(time.Hour))
			l, err := core.NewLimiter(core.MustPolicy("p", core.Limit{Name: "x", Algorithm: alg}),
				core.WithClock(clk), core.WithStore(newStore(t, c, redisstore.Options{
					Prefix: fmt.Sprintf("fg:caught%d:", i), CallerClock: true, DenyCacheSize: -1})))
			require.NoError(t, err)
			a, err := l.Allow(ctx, "k")
			require.NoError(t, err)
			require.True(t, a.Allowed, "A")
			clk.Advance(-30 * time.Second) // the clock steps back 30 s
			_, err = l.Peek(ctx, "k", 1)   // settles: the state moves back 30 s
			require.NoError(t, err)
			clk.Advance(60 * time.Second) // real: A + 60 s; A's hold has ended
			cr, err := l.Allow(ctx, "k")
			require.NoError(t, err)
			require.True(t, cr.Allowed, "C")
			clk.Advance(time.Second)
			_, err = l.Refund(ctx, "k", a)
			require.NoError(t, err)
			clk.Advance(30 * time.Second) // C + 31 s
			d, err := l.Allow(ctx, "k")
			require.NoError(t, err)
			require.False(t, d.Allowed, "D: A's refund, after its hold ended, gave back C's cost")
		})
	}
}

// TestAttackRefundAfterClockCaughtUpTakeBetween: as
// TestAttackRefundAfterClockCaughtUp, with a take B admitted after the
// step, before the clock caught up with A's instant (GCRA, 1 a minute,
// burst 2: A1, A2 at T, back 90 s, B at T-20, C at T+30): a take at a now
// before the state's born set born to it, and A2's refund (its hold ended
// at T+120 on the clock before the step, at T+30 on the state's) then
// gave 60 s back: D at T+31, 3 admitted in 51 s where burst 2 allows 2.
func TestAttackRefundAfterClockCaughtUpTakeBetween(t *testing.T) {
	t.Parallel()
	c := startOnTime(t)
	ctx := context.Background()
	clk := coretest.NewClock(coretest.T0.Add(time.Hour))
	l, err := core.NewLimiter(core.MustPolicy("p", core.Limit{Name: "x", Algorithm: core.GCRA{Rate: core.PerMinute(1), Burst: 2}}),
		core.WithClock(clk), core.WithStore(newStore(t, c, redisstore.Options{
			Prefix: "fg:between:", CallerClock: true, DenyCacheSize: -1})))
	require.NoError(t, err)
	allow := func(want bool, what string) core.Result {
		t.Helper()
		r, err := l.Allow(ctx, "k")
		require.NoError(t, err)
		require.Equal(t, want, r.Allowed, what)
		return r
	}
	allow(true, "A1")
	a2 := allow(true, "A2")
	clk.Advance(-90 * time.Second) // the clock steps back 90 s
	allow(false, "at the step")    // settles: the state moves back 90 s
	clk.Advance(70 * time.Second)
	allow(true, "B") // T-20
	clk.Advance(50 * time.Second)
	allow(true, "C") // T+30
	clk.Advance(time.Second)
	_, err = l.Refund(ctx, "k", a2)
	require.NoError(t, err)
	allow(false, "D: A2's refund, after its hold ended, gave back B's or C's cost")
}
