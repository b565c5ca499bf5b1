package redisinflight_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/inflight/redisinflight"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/canary"
	"github.com/floodgate-go/floodgate/internal/faultproxy"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackBlackholedConnections: Redis fails over (or a link is cut
// without a reset): the connections open to it are black-holed while new
// connections reach a Redis that answers. The limiter must decide on Redis
// again within about a second, whatever the client's read timeout: its
// MaxCalls round trips waiting on black-holed connections held every token
// until the client's ReadTimeout (5 s by default), or for good without
// one, every Acquire meanwhile going to the failure mode.
func TestAttackBlackholedConnections(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts redis.Options
	}{
		{"default options", redis.Options{}},
		{"reads never time out", redis.Options{ReadTimeout: -1, WriteTimeout: -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := redistest.Start(t)
			canary.Rounds(t, 100*time.Millisecond, func() error {
				f := faultproxy.StartFailover(t, srv.Addr())
				o := tc.opts
				o.Addr, o.MaxRetries, o.PoolSize = srv.Addr(), -1, 4
				o.Dialer = f.Dial
				c := redis.NewClient(&o)
				t.Cleanup(func() { _ = c.Close() })
				// (A Timeout of 200 ms keeps a loaded machine's first round
				// trips within it; the round trips' own bound is still 1 s.)
				l := newLimiter(t, c, 1000, redisinflight.Options{Timeout: 200 * time.Millisecond, FailureMode: redisstore.FailClosed,
					ProbeInterval: 20 * time.Millisecond, ProbeMax: 50 * time.Millisecond})
				ctx := context.Background()
				within.Until(t, "a first Acquire decided by Redis", func() bool {
					s, err := l.Acquire(ctx, "warm")
					return err == nil && s.Release(ctx) == nil
				})

				f.Blackhole() // from now on, never resumed
				var wg sync.WaitGroup
				for g := range 32 {
					wg.Go(func() {
						for i := range 5 {
							_, err := l.Acquire(ctx, fmt.Sprint(g, ":", i))
							assert.ErrorIs(t, err, redisstore.ErrUnavailable)
						}
					})
				}
				within.Wait(t, &wg, "the test's goroutines")
				f.Recover() // Redis answers again, on new connections
				took := untilAcquired(t, l)
				t.Logf("back on Redis %v after it answered again", took)
				if took >= 2500*time.Millisecond {
					return fmt.Errorf("back on Redis %v after it answered again, not within max(1 s, 4 × Timeout) and a trial: "+
						"before, the client's ReadTimeout (5 s), or never", took)
				}
				return nil
			})
		})
	}
}

// untilAcquired acquires (and releases) a slot every 2 ms until Redis
// grants one, at most within 30 s, and returns how long that took.
func untilAcquired(t *testing.T, l *redisinflight.Limiter) time.Duration {
	t.Helper()
	ctx := context.Background()
	start := time.Now()
	for {
		s, err := l.Acquire(ctx, "after")
		if err == nil {
			took := time.Since(start)
			// (Its release may miss the limiter's Timeout on a loaded
			// machine, as it did 1 package run in 20 under -race with two
			// CPU burners: then it fails as unavailable, and the lease
			// ends by itself. The claim is the Acquire's.)
			if err := s.Release(ctx); err != nil {
				require.ErrorIs(t, err, redisstore.ErrUnavailable)
			}
			return took
		}
		require.ErrorIs(t, err, redisstore.ErrUnavailable)
		require.Less(t, time.Since(start), 30*time.Second, "not back on Redis")
		time.Sleep(2 * time.Millisecond)
	}
}
