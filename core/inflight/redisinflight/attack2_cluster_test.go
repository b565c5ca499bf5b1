package redisinflight_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/inflight/redisinflight"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/faultproxy"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackBlackholedCluster: TestAttackBlackholedConnections on a real
// Cluster, whose client has no clone sharing its pool: with go-redis's
// default ReadTimeout (5 s) the limiter's MaxCalls round trips on
// black-holed connections held every token about 5 s (every Acquire
// meanwhile decided by the failure mode, with Redis answering); with
// reads that never time out, New refused the client. It now sends with a
// client of its own made from the client's options, bounded by
// max(1 s, 4 × Timeout), which Close releases.
func TestAttackBlackholedCluster(t *testing.T) {
	t.Parallel()
	cl := redistest.StartCluster(t, 3)
	for _, tc := range []struct {
		name string
		opts redis.ClusterOptions
	}{
		{"default options", redis.ClusterOptions{}},
		{"reads never time out", redis.ClusterOptions{ReadTimeout: -1, WriteTimeout: -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := faultproxy.StartFailover(t, cl.Addrs()...)
			o := tc.opts
			o.Addrs, o.Dialer, o.PoolSize = cl.Addrs(), f.Dial, 4
			c := redis.NewClusterClient(&o)
			t.Cleanup(func() { _ = c.Close() })
			l := newLimiter(t, c, 1000, redisinflight.Options{Timeout: 200 * time.Millisecond, FailureMode: redisstore.FailClosed,
				ProbeInterval: 20 * time.Millisecond, ProbeMax: 50 * time.Millisecond})
			t.Cleanup(func() { _ = l.Close() })
			ctx := context.Background()
			within.Until(t, "Acquires of every node's keys decided by Redis", func() bool {
				for i := range 32 {
					s, err := l.Acquire(ctx, fmt.Sprint("warm", i))
					if err != nil || s.Release(ctx) != nil {
						return false
					}
				}
				return true
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
			cn := startCanary()
			f.Recover() // every node answers again, on new connections
			start := time.Now()
			for {
				s, err := l.Acquire(ctx, "after")
				if err == nil {
					require.NoError(t, s.Release(ctx))
					break
				}
				require.ErrorIs(t, err, redisstore.ErrUnavailable)
				require.Less(t, time.Since(start), 30*time.Second, "not back on Redis")
				time.Sleep(2 * time.Millisecond)
			}
			took := time.Since(start)
			t.Logf("back on Redis %v after it answered again", took)
			if cn.kept(t, 100*time.Millisecond) {
				assert.Less(t, took, 2500*time.Millisecond, "max(1 s, 4 × Timeout) and a trial: before, the client's ReadTimeout (5 s), or refused")
			}
		})
	}
}
