package redisstore_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackRefundNotHiddenByDenyCache: 64 goroutines take from one key
// past its limit and refund one admitted take in 7; once they are done,
// this process admits exactly what the refunds gave back. A denial Redis
// decided before a refund and received after it was remembered by the
// deny cache until the window's end, hiding the refunded units from this
// process: 1 or 2 short in 7 rounds of 30. It now is not (see
// denyCache.put).
func TestAttackRefundNotHiddenByDenyCache(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	for _, pipelines := range []int{1, 8} {
		t.Run(fmt.Sprint("pipelines ", pipelines), func(t *testing.T) {
			c := redis.NewClient(&redis.Options{Addr: srv.Addr(), ContextTimeoutEnabled: true, PoolSize: 64})
			t.Cleanup(func() { _ = c.Close() })
			s, err := redisstore.New(c, redisstore.Options{Timeout: within.Bound, Pipelines: pipelines,
				Prefix: fmt.Sprint("refund-deny-", pipelines, ":")})
			require.NoError(t, err)
			t.Cleanup(func() { _ = s.Close() })
			const quota = 200
			p := core.MustPolicy("p", core.Limit{Name: "a", Algorithm: core.FixedWindow{Quota: quota, Window: time.Hour, Anchored: true}})
			l, err := core.NewLimiter(p, core.WithStore(s))
			require.NoError(t, err)
			ctx := context.Background()
			for round := range 15 {
				key := fmt.Sprint("k", round)
				var admitted, refunded atomic.Int64
				var wg sync.WaitGroup
				for g := range 64 {
					wg.Go(func() {
						for i := range 6 {
							r, err := l.Allow(ctx, key)
							if !assert.NoError(t, err) || !r.Allowed {
								continue
							}
							admitted.Add(1)
							if (g*6+i)%7 == 0 {
								_, err := l.Refund(ctx, key, r)
								if assert.NoError(t, err) {
									refunded.Add(1)
								}
							}
						}
					})
				}
				within.Wait(t, &wg, "the decisions")
				left := 0
				for range quota {
					if r, err := l.Allow(ctx, key); err == nil && r.Allowed {
						left++
					}
				}
				require.Equal(t, int64(quota)-(admitted.Load()-refunded.Load()), int64(left),
					"round %d: admitted %d, refunded %d: the units left", round, admitted.Load(), refunded.Load())
			}
		})
	}
}
