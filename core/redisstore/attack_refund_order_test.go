package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
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
	ctx := context.Background()
	const burst = 100
	r := core.Per(burst, burst*time.Second)
	for _, a := range []core.Algorithm{
		core.GCRA{Rate: r, Burst: burst},
		core.TokenBucket{Rate: r, Burst: burst},
		core.LeakyBucket{Rate: r, Capacity: burst, NoDelay: burst},
	} {
		for _, stepBack := range []bool{false, true} {
			name := a.String() + "/later-span"
			if stepBack {
				name = a.String() + "/clock-step-back"
			}
			t.Run(name, func(t *testing.T) {
				clk := newClock()
				s := newStore(t, c, redisstore.Options{CallerClock: true})
				l, err := core.NewLimiter(core.MustPolicy("p", core.Limit{Name: "l", Algorithm: a}), core.WithStore(s), core.WithClock(clk))
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
				var rt core.Result
				var ok bool
				if stepBack {
					clk.Advance(10 * time.Second)
					rr, ok := take(40)
					require.True(t, ok)
					clk.Advance(-10 * time.Second)
					rt, ok = take(50)
					require.True(t, ok)
					refund(rr)
					clk.Advance(59 * time.Second)
				} else {
					rx, ok := take(50)
					require.True(t, ok)
					rr, ok := take(50)
					require.True(t, ok)
					refund(rx)
					rt, ok = take(30)
					require.True(t, ok)
					refund(rr)
					clk.Advance(29 * time.Second)
				}
				_ = ok
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
				require.LessOrEqual(t, kept, int64(burst), "units admitted at one instant, and kept, with a burst of %d", burst)
			})
		}
	}
}
