package redisstore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackVolatileEvictionReported: every limiter key has a TTL, so a
// volatile-* maxmemory-policy evicts them like an allkeys-* one, and
// before anything else in a Redis shared with keys without a TTL (which
// volatile-* never evicts). Here an application's keys without a TTL fill
// a volatile-lru Redis: Redis evicts the limiter's key of a client held at
// its limit, whose next request is admitted as a first one. Check must
// report that policy as evicting (Stats().Evicts, one warning): it took
// volatile-* for safe ("evicts limiter keys only once nothing else is
// left") and even recommended it.
func TestAttackVolatileEvictionReported(t *testing.T) {
	t.Parallel()
	for _, policy := range []string{"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl"} {
		t.Run(policy, func(t *testing.T) {
			t.Parallel()
			srv := redistest.Start(t, "--maxmemory", "8mb", "--maxmemory-policy", policy)
			c := srv.Client(t)
			s, logs := faultStore(t, c, redisstore.Options{Timeout: noDeadline})
			require.NoError(t, s.Check(context.Background()))
			assert.True(t, s.Stats().Evicts, "volatile-* evicts limiter keys: they all have a TTL")
			assert.Equal(t, 1, logs.count("evicts keys"))

			l := faultLimiter(t, s, core.MustPolicy("v", core.Limit{Name: "v", Algorithm: core.GCRA{Rate: core.PerHour(1)}}))
			ctx := context.Background()
			r, err := l.Allow(ctx, "client")
			require.NoError(t, err)
			require.True(t, r.Allowed)
			r, err = l.Allow(ctx, "client")
			require.NoError(t, err)
			require.False(t, r.Allowed, "held at its limit for an hour")
			// The application fills Redis with keys of no TTL, to OOM.
			junk := strings.Repeat("x", 64<<10)
			for i := 0; ; i++ {
				if err := c.Set(ctx, fmt.Sprint("app:", i), junk, 0).Err(); err != nil {
					require.Contains(t, err.Error(), "OOM")
					break
				}
				require.Less(t, i, 1000, "no OOM")
			}
			n, err := c.Keys(ctx, "fg:*").Result()
			require.NoError(t, err)
			assert.Empty(t, n, "every limiter key was evicted, none of the application's")
			// Decided by Redis as a first request (the deny cache, which
			// answers repeated denials locally, is per table: a fleet's
			// other processes admit at once): the limit was erased, as
			// Check now warns.
			// (Room for the new state: the application frees a few keys.)
			require.NoError(t, c.Del(ctx, "app:0", "app:1", "app:2", "app:3").Err())
			other := faultLimiter(t, s, core.MustPolicy("v", core.Limit{Name: "v", Algorithm: core.GCRA{Rate: core.PerHour(1)}}))
			r, err = other.Allow(ctx, "client")
			require.NoError(t, err)
			assert.True(t, r.Allowed, "the evicted limit admits again")
		})
	}
}
