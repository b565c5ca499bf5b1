package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
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
	ctx := context.Background()
	const burst = 100
	for _, a := range []core.Algorithm{
		core.GCRA{Rate: core.Per(burst, burst*time.Second), Burst: burst},
		core.TokenBucket{Rate: core.Per(burst, burst*time.Second), Burst: burst},
		core.LeakyBucket{Rate: core.Per(burst, burst*time.Second), Capacity: burst, NoDelay: burst},
	} {
		t.Run(a.String(), func(t *testing.T) {
			clk := newClock()
			s := newStore(t, c, redisstore.Options{CallerClock: true})
			l, err := core.NewLimiter(core.MustPolicy("p", core.Limit{Name: "l", Algorithm: a}), core.WithStore(s), core.WithClock(clk))
			require.NoError(t, err)
			take := func(cost int64) (core.Result, bool) {
				r, err := l.AllowN(ctx, "k", cost)
				require.NoError(t, err)
				return r, r.Allowed
			}
			ra, ok := take(burst / 2)
			require.True(t, ok)
			rb, ok := take(burst / 2)
			require.True(t, ok)
			_, err = l.Refund(ctx, "k", ra)
			require.NoError(t, err)
			clk.Advance(49 * time.Second) // B, moved down to [0 s, 50 s], holds 1 unit
			kept := int64(0)
			for _, c := range []int64{burst / 2, 16, 8, 4, 2, 1, 1} {
				if _, ok := take(c); ok {
					kept += c
				}
			}
			_, err = l.Refund(ctx, "k", rb)
			require.NoError(t, err)
			for _, c := range []int64{burst / 2, 16, 8, 4, 2, 1, 1} {
				if _, ok := take(c); ok {
					kept += c
				}
			}
			require.LessOrEqual(t, kept, int64(burst), "units admitted at one instant, and kept, with a burst of %d", burst)
		})
	}
}
