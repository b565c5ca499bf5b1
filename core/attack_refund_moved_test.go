package core_test

import (
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/require"
)

// TestAttackRefundAfterEarlierRefundKeepsBurst: a key takes A and
// then B (half the burst each) and A is refunded at once, which moves B's
// span down to where A's was. Once most of B's (moved) span has drained, a
// take D and then the refund of B: B's hold still ends where its span
// ended when it was taken, so the refund gives back B's whole cost, of
// which it held almost nothing. The key is then admitted more at that one
// instant than the burst: 149 units with a burst of 100 on the old code.
// The docs promise a refund never gives back more than that very take
// still holds, and so never lets a client past the burst.
func TestAttackRefundAfterEarlierRefundKeepsBurst(t *testing.T) {
	t.Parallel()
	for name, p := range coretest.RefundMovePolicies() {
		t.Run(name, func(t *testing.T) {
			clk := coretest.NewClock(t0)
			l, err := core.NewLimiter(p, core.WithClock(clk))
			require.NoError(t, err)
			k := coretest.Keyed{T: t, L: l, Key: "k"}
			b := coretest.RefundMoves["earlier-refunded"](k, clk) // B holds 1 unit
			// At one instant a key holding B's 1 unit may be admitted at
			// most burst units (B's refund may give its 1 unit back).
			require.LessOrEqual(t, k.KeptAround(b), int64(100),
				"units admitted at one instant (and kept) with a burst of 100")
		})
	}
}
