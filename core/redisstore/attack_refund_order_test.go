package redisstore_test

import (
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/stretchr/testify/require"
)

// TestAttackRefundOrderOnRedis is core's TestAttackRefundOfEarlierTakeWithLaterSpan
// and TestAttackRefundAcrossClockStepBack on Redis (CallerClock): a
// refund of a take R moves a take T decided after it though R's span
// ended after T's (a refund between them lowered the state) or R was
// decided at a later instant (the clock stepped back); the log skipped it,
// and T's refund gave back what had drained: 129 and 140 units kept at one
// instant with a burst of 100.
func TestAttackRefundOrderOnRedis(t *testing.T) {
	t.Parallel()
	c := startRedis(t).Client(t)
	for name, p := range coretest.RefundMovePolicies() {
		for _, move := range []string{"later-span", "clock-step-back"} {
			t.Run(name+"/"+move, func(t *testing.T) {
				clk := newClock()
				s := newStore(t, c, redisstore.Options{CallerClock: true})
				l, err := core.NewLimiter(p, core.WithStore(s), core.WithClock(clk))
				require.NoError(t, err)
				k := coretest.Keyed{T: t, L: l, Key: "k"}
				tt := coretest.RefundMoves[move](k, clk) // T holds 1 unit
				require.LessOrEqual(t, k.KeptAround(tt), int64(100),
					"units admitted at one instant, and kept, with a burst of 100")
			})
		}
	}
}
