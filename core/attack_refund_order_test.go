package core_test

import (
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/require"
)

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
	for name, p := range coretest.RefundMovePolicies() {
		t.Run(name, func(t *testing.T) {
			clk := coretest.NewClock(t0)
			l, err := core.NewLimiter(p, core.WithClock(clk))
			require.NoError(t, err)
			k := coretest.Keyed{T: t, L: l, Key: "k"}
			tt := coretest.RefundMoves["later-span"](k, clk) // T holds 1 unit
			require.LessOrEqual(t, k.KeptAround(tt), int64(100),
				"units admitted at one instant, and kept, with a burst of 100")
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
	for name, p := range coretest.RefundMovePolicies() {
		t.Run(name, func(t *testing.T) {
			clk := coretest.NewClock(t0)
			l, err := core.NewLimiter(p, core.WithClock(clk))
			require.NoError(t, err)
			k := coretest.Keyed{T: t, L: l, Key: "k"}
			tt := coretest.RefundMoves["clock-step-back"](k, clk) // T holds 1 unit
			require.LessOrEqual(t, k.KeptAround(tt), int64(100),
				"units admitted at one instant, and kept, with a burst of 100")
		})
	}
}
