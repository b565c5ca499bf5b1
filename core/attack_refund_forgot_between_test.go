package core_test

import (
	"context"
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
	ctx := context.Background()
	const burst = 100
	for name, p := range refundOrderPolicies(burst) {
		for _, shards := range []int{64, 128} {
			t.Run(fmt.Sprintf("%s/shards=%d", name, shards), func(t *testing.T) {
				clk := coretest.NewClock(t0)
				ms, err := core.NewMemoryStore(core.MemoryOptions{Shards: shards, MaxKeys: 1 << 12})
				require.NoError(t, err)
				// A ledger of 64: one entry a shard of the log.
				l, err := core.NewLimiter(p, core.WithStore(ms), core.WithClock(clk), core.WithRefundLedger(64, time.Hour))
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
				ra, ok := take(50)
				require.True(t, ok)
				rr, ok := take(40)
				require.True(t, ok)
				refund(ra)
				rt, ok := take(10)
				require.True(t, ok)
				refund(rr) // forgets A's refund

				clk.Advance(9 * time.Second) // T holds 1 unit
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
}
