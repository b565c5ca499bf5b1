package core_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/require"
)

// TestAttackRefundLogForgetsARefundBetweenTwoTakes: the log counts a
// refund of a take R against a take T unless R was taken after T for
// certain; one test of it is that R's span ended after T's, R was taken at
// T's instant or later and no refund between the two takes moved the
// limit, as the log knows them. A refund it has forgotten may lie between
// them though. A (50), R (40), A's refund (R now spans [0, 40 s]), T (10:
// [40 s, 50 s]), R's refund (T now spans [0, 10 s]), which finds its shard
// of the log full (one entry a shard) and forgets A's refund: T is
// positioned above it, so T still gives back, and R's refund is not
// counted against T (R's span ended after T's, nothing known between).
// 9 s on, when T holds 1 unit, a take D, T's refund (giving back 10
// units), a take E: 109 units kept at one instant with a burst of 100.
func TestAttackRefundLogForgetsARefundBetweenTwoTakes(t *testing.T) {
	t.Parallel()
	for name, p := range coretest.RefundMovePolicies() {
		for _, shards := range []int{64, 128} {
			t.Run(fmt.Sprintf("%s/shards=%d", name, shards), func(t *testing.T) {
				clk := coretest.NewClock(t0)
				ms, err := core.NewMemoryStore(core.MemoryOptions{Shards: shards, MaxKeys: 1 << 12})
				require.NoError(t, err)
				// A ledger of 64: one entry a shard of the log.
				l, err := core.NewLimiter(p, core.WithStore(ms), core.WithClock(clk), core.WithRefundLedger(64, time.Hour))
				require.NoError(t, err)
				k := coretest.Keyed{T: t, L: l, Key: "k"}
				tt := coretest.RefundMoves["forgotten-between"](k, clk) // T holds 1 unit
				require.LessOrEqual(t, k.KeptAround(tt), int64(100),
					"units admitted at one instant, and kept, with a burst of 100")
			})
		}
	}
}
