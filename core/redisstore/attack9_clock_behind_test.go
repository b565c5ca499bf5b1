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

// TestAttackClockBehindBoundsLockout: on Redis TIME (the default), a key's
// state written by a server whose clock read an hour later than the one
// deciding now (a failover to a replica whose clock lags, a server's clock
// stepped back by NTP) denied the key for that hour: every key a client
// had used up, for the step, whatever its limit's period (a RetryAfter of
// 1h0m12s for 5 a minute). The state ahead of Redis's instant by more than
// the limit can hold is now brought back to it, and written: the key is
// denied at most the limit's period, as when it was used up, never
// admitted beyond it. The old server is a store on the caller's clock,
// set an hour after Redis's TIME (bracketed by two readings of it), with
// the scripts deciding and stamping its writes as on TIME (LoadOnTime).
func TestAttackClockBehindBoundsLockout(t *testing.T) {
	t.Parallel()
	c := startOnTime(t)
	ctx := context.Background()
	const period = time.Minute
	policies := [][]core.Limit{
		{{Name: "g", Algorithm: core.GCRA{Rate: core.Per(5, period)}},
			{Name: "f", Algorithm: core.FixedWindow{Quota: 9, Window: period}}},
	}
	for _, a := range []core.Algorithm{
		core.GCRA{Rate: core.Per(5, period)},
		core.LeakyBucket{Rate: core.Per(5, period), Capacity: 5, NoDelay: 5},
		core.TokenBucket{Rate: core.Per(5, period)},
		core.FixedWindow{Quota: 5, Window: period},
		core.FixedWindow{Quota: 5, Window: period, Anchored: true},
		core.SlidingWindow{Quota: 5, Window: period},
		core.SlidingLog{Quota: 5, Window: period},
		core.SlidingLog{Quota: 5, Window: period, CountRejected: true},
		core.Hybrid{Quota: 5, Window: period},
		core.RollingWindow{Quota: 5, Window: period, Period: period / 4},
		core.Backoff{Free: 5, Window: period, Base: period / 4, Max: period, Forgive: 2 * period},
	} {
		policies = append(policies, []core.Limit{{Name: "x", Algorithm: a}})
	}
	const bound = 2*period + period/5 // the longest span: SlidingWindow's, Backoff's forgiveness
	for i, limits := range policies {
		t.Run(fmt.Sprint(i, limits[0].Algorithm), func(t *testing.T) {
			t.Parallel()
			prefix := fmt.Sprintf("fg:behind%d:", i)
			p := core.MustPolicy("p", limits...)
			before, err := c.Time(ctx).Result()
			require.NoError(t, err)
			clk := coretest.NewClock(before.Add(time.Hour).Truncate(time.Microsecond))
			old, err := core.NewLimiter(p, core.WithClock(clk),
				core.WithStore(newStore(t, c, redisstore.Options{Prefix: prefix, CallerClock: true})))
			require.NoError(t, err)
			now, err := core.NewLimiter(p, core.WithStore(newStore(t, c, redisstore.Options{Prefix: prefix})))
			require.NoError(t, err)
			var r core.Result
			for k := 0; k < 10 && (k == 0 || r.Allowed); k++ { // 5 (Backoff: 6), then a denial
				r, err = old.Allow(ctx, "k")
				require.NoError(t, err)
			}
			require.False(t, r.Allowed, "used up on the old server")
			for k := 0; k < 3; k++ {
				r, err = now.Allow(ctx, "k")
				require.NoError(t, err)
				require.False(t, r.Allowed, "never admitted beyond the limit")
				require.LessOrEqual(t, r.RetryAfter, bound, "denied for the period, not the step")
				require.LessOrEqual(t, r.ResetAfter, bound)
				r, err = now.Peek(ctx, "k", 1)
				require.NoError(t, err)
				require.False(t, r.Allowed)
				require.LessOrEqual(t, r.RetryAfter, bound)
			}
			after, err := c.Time(ctx).Result()
			require.NoError(t, err)
			require.Less(t, after.Sub(before), time.Minute, "Redis's clock did not move an hour meanwhile")
		})
	}
}
