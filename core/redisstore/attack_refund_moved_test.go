package redisstore_test

import (
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/stretchr/testify/require"
)

// TestAttackRefundAfterEarlierRefundKeepsBurst is core's test of the same
// name on Redis: a key takes A and then B (half the burst each), A is
// refunded at once, which moves B's span down to where A's was; once most
// of B's span has drained, a take, then B's refund, then another take.
// B's refund gave back B's whole cost, of which it held almost nothing:
// 149 units admitted at one instant with a burst of 100. It now gives
// back what B still holds (the limiter's log of its refunds, which the
// refunds of one process share: see core's package documentation).
func TestAttackRefundAfterEarlierRefundKeepsBurst(t *testing.T) {
	t.Parallel()
	c := startRedis(t).Client(t)
	for name, p := range coretest.RefundMovePolicies() {
		for _, move := range []string{"earlier-refunded"} {
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
