package redisstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/stretchr/testify/require"
)

// TestAttackSettleUnderSmallerSpanRefills: limiters of one name and shape
// count on the same keys whatever their quotas, rates and bursts (a fleet
// in the middle of a reload, an Overrides limiter, SetPolicy), and on a
// monotonic Redis TIME a key used up by one with a large burst lies ahead
// of now by that burst's span. A call of one with a smaller span (even a
// denied take, or a peek) took that state for a clock that went back and
// wrote it back within its own span: the next takes of the large one were
// admitted again, beyond its limit, as often as the small one was called.
// Backoff's lock of 100 hours was cut to the small one's hour. Now a state
// is moved only when the clock went back, whatever the limits deciding it.
func TestAttackSettleUnderSmallerSpanRefills(t *testing.T) {
	t.Parallel()
	c := startRedis(t).Client(t)
	ctx := context.Background()
	const (
		big, small = 20, 2
		period     = time.Hour
	)
	pairs := []struct{ big, small core.Algorithm }{
		{core.GCRA{Rate: core.Per(1, period), Burst: big}, core.GCRA{Rate: core.Per(1, period), Burst: small}},
		{core.LeakyBucket{Rate: core.Per(1, period), Capacity: big, NoDelay: big},
			core.LeakyBucket{Rate: core.Per(1, period), Capacity: small, NoDelay: small}},
		{core.Hybrid{Quota: big, Window: period}, core.Hybrid{Quota: small, Window: period}},
		{core.Backoff{Free: 1, Window: period, Base: 100 * period, Max: 100 * period, Forgive: 100 * period},
			core.Backoff{Free: 1, Window: period, Base: period, Max: period, Forgive: period}},
	}
	for i, pr := range pairs {
		t.Run(fmt.Sprint(pr.big), func(t *testing.T) {
			t.Parallel()
			prefix := fmt.Sprintf("fg:reload%d:", i)
			st := newStore(t, c, redisstore.Options{Prefix: prefix})
			bigL, err := core.NewLimiter(core.MustPolicy("p", core.Limit{Name: "x", Algorithm: pr.big}), core.WithStore(st))
			require.NoError(t, err)
			smallL, err := core.NewLimiter(core.MustPolicy("p", core.Limit{Name: "x", Algorithm: pr.small}), core.WithStore(st))
			require.NoError(t, err)
			admitted, limit := 0, big
			if _, ok := pr.big.(core.Backoff); ok {
				limit = 2 // Free, then the take that sets the lock
			}
			var r core.Result
			for k := 0; k < 3*big; k++ {
				r, err = bigL.Allow(ctx, "k")
				require.NoError(t, err)
				if r.Allowed {
					admitted++
				}
				if k >= limit-1 {
					_, err = smallL.Allow(ctx, "k")
					require.NoError(t, err)
				}
			}
			require.LessOrEqual(t, admitted, limit, "admitted beyond the large limit")
			if _, ok := pr.big.(core.Backoff); ok {
				r, err = bigL.Peek(ctx, "k", 1)
				require.NoError(t, err)
				require.Greater(t, r.RetryAfter, 90*period, "the large limit's lock cut short")
			}
		})
	}
}
