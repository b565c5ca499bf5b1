package core_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/require"
)

// refundOrderAlgorithms are the span algorithms, in the word mode (GCRA,
// LeakyBucket alone) and the locked mode (TokenBucket; GCRA beside a
// window limit).
func refundOrderPolicies(burst int64) map[string]*core.Policy {
	r := core.Per(burst, time.Duration(burst)*time.Second)
	return map[string]*core.Policy{
		"GCRA":        core.MustPolicy("p", core.Limit{Name: "l", Algorithm: core.GCRA{Rate: r, Burst: burst}}),
		"LeakyBucket": core.MustPolicy("p", core.Limit{Name: "l", Algorithm: core.LeakyBucket{Rate: r, Capacity: burst, NoDelay: burst}}),
		"TokenBucket": core.MustPolicy("p", core.Limit{Name: "l", Algorithm: core.TokenBucket{Rate: r, Burst: burst}}),
		"GCRA+FixedWindow": core.MustPolicy("p",
			core.Limit{Name: "l", Algorithm: core.GCRA{Rate: r, Burst: burst}},
			core.Limit{Name: "w", Algorithm: core.FixedWindow{Quota: 1 << 20, Window: time.Hour}}),
	}
}

// TestAttackRefundOfEarlierTakeWithLaterSpan: at one instant take X (half
// the burst) and R (half), refund X (R now spans [0, 50 s]), take T (30:
// its span, [50 s, 80 s], ends before R's did when R was taken, [50 s,
// 100 s], though T was taken after R). R's refund then moves T down to
// [0, 30 s]; but the log counts a refund of a take at the same instant
// against a later take only when its span ended no later than the later
// take's, so T's refund is not lowered: 29 s on, when T holds 1 unit, a
// take D, T's refund (giving back 30 units), a take E: 129 units kept at
// one instant with a burst of 100, where an ideal meter replaying only the
// kept takes (D and E) admits at most 100.
func TestAttackRefundOfEarlierTakeWithLaterSpan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const burst = 100
	for name, p := range refundOrderPolicies(burst) {
		t.Run(name, func(t *testing.T) {
			clk := coretest.NewClock(t0)
			l, err := core.NewLimiter(p, core.WithClock(clk))
			require.NoError(t, err)
			take := func(cost int64) (core.Result, bool) {
				r, err := l.AllowN(ctx, "k", cost)
				require.NoError(t, err)
				return r, r.Allowed
			}
			refund := func(r core.Result) {
				_, err := l.Refund(ctx, "k", r)
				require.NoError(t, err)
			}
			rx, ok := take(50)
			require.True(t, ok)
			rr, ok := take(50)
			require.True(t, ok)
			refund(rx)
			rt, ok := take(30)
			require.True(t, ok)
			refund(rr) // gives back 50: T now spans [0, 30 s]

			clk.Advance(29 * time.Second) // T holds 1 unit
			kept := int64(0)
			costs := []int64{64, 32, 16, 8, 4, 2, 1, 1}
			for _, c := range costs {
				if _, ok := take(c); ok {
					kept += c
				}
			}
			refund(rt)
			for _, c := range costs {
				if _, ok := take(c); ok {
					kept += c
				}
			}
			require.LessOrEqual(t, kept, int64(burst),
				"units admitted at one instant, and kept, with a burst of %d", burst)
		})
	}
}

// TestAttackRefundAcrossClockStepBack: the clock steps back between two
// takes (the library decides a caller whose now is older than the key has
// seen more strictly, never more leniently). R, 40 units at +10 s; the
// clock back at +0 s; T, 50 units, queued after R ([50 s, 100 s]); R's
// refund moves T down to [10 s, 60 s]. The log skips a refund of a take
// decided at a later instant, as if it could not have moved an earlier
// one, so T's refund is not lowered: at +59 s, when T holds 1 unit, a
// take D, T's refund (giving back 41 units), a take E: 140 units kept at
// one instant with a burst of 100.
func TestAttackRefundAcrossClockStepBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const burst = 100
	for name, p := range refundOrderPolicies(burst) {
		t.Run(name, func(t *testing.T) {
			clk := coretest.NewClock(t0)
			l, err := core.NewLimiter(p, core.WithClock(clk))
			require.NoError(t, err)
			take := func(cost int64) (core.Result, bool) {
				r, err := l.AllowN(ctx, "k", cost)
				require.NoError(t, err)
				return r, r.Allowed
			}
			refund := func(r core.Result) {
				_, err := l.Refund(ctx, "k", r)
				require.NoError(t, err)
			}
			clk.Advance(10 * time.Second)
			rr, ok := take(40)
			require.True(t, ok)
			clk.Advance(-10 * time.Second) // the clock steps back
			rt, ok := take(50)
			require.True(t, ok)
			refund(rr)

			clk.Advance(59 * time.Second) // T holds 1 unit
			kept := int64(0)
			costs := []int64{64, 32, 16, 8, 4, 2, 1, 1}
			for _, c := range costs {
				if _, ok := take(c); ok {
					kept += c
				}
			}
			refund(rt)
			for _, c := range costs {
				if _, ok := take(c); ok {
					kept += c
				}
			}
			require.LessOrEqual(t, kept, int64(burst),
				"units admitted at one instant, and kept, with a burst of %d", burst)
		})
	}
}
