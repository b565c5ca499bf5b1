package redisinflight_test

import (
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/inflight/redisinflight"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/canary"
	"github.com/floodgate-go/floodgate/internal/faultproxy"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestAttackBlackholedEveryClient: TestAttackBlackholedConnections for a
// Cluster client, whose client has no clone sharing its pool, and for
// pools holding several idle connections. With go-redis's default
// ReadTimeout (5 s) the limiter's MaxCalls round trips on black-holed
// Cluster connections held every token about 5 s (every Acquire meanwhile
// decided by the failure mode, with Redis answering); with reads that
// never time out, New refused the client. It now sends with a client of
// its own made from the client's options, bounded by max(1 s,
// 4 × Timeout), which Close releases. And whatever the client, each idle
// connection black-holed with the others cost a trial of the breaker the
// whole bound: a round trip that times out now makes the limiter PING
// every idle connection at once.
func TestAttackBlackholedEveryClient(t *testing.T) {
	cl := redistest.LaunchCluster(t, 3) // it forms while the serial tests run
	t.Parallel()
	srv := redistest.Start(t)
	cl.Wait(t)
	for _, tc := range []struct {
		name  string
		make  func(dial func(context.Context, string, string) (net.Conn, error)) redis.UniversalClient
		addrs []string
	}{
		{"client, default options", func(d func(context.Context, string, string) (net.Conn, error)) redis.UniversalClient {
			return redis.NewClient(&redis.Options{Addr: srv.Addr(), Dialer: d, PoolSize: 20})
		}, []string{srv.Addr()}},
		{"cluster, default options", func(d func(context.Context, string, string) (net.Conn, error)) redis.UniversalClient {
			return redis.NewClusterClient(&redis.ClusterOptions{Addrs: cl.Addrs(), Dialer: d, PoolSize: 20})
		}, cl.Addrs()},
		{"cluster, reads never time out", func(d func(context.Context, string, string) (net.Conn, error)) redis.UniversalClient {
			return redis.NewClusterClient(&redis.ClusterOptions{Addrs: cl.Addrs(), Dialer: d, PoolSize: 20, ReadTimeout: -1, WriteTimeout: -1})
		}, cl.Addrs()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each its own proxy and key prefix
			canary.Rounds(t, 100*time.Millisecond, func() error {
				f := faultproxy.StartFailover(t, tc.addrs...)
				c := tc.make(f.Dial)
				t.Cleanup(func() { _ = c.Close() })
				l := newLimiter(t, c, 1000, redisinflight.Options{Prefix: "fg:" + t.Name() + ":", Timeout: 200 * time.Millisecond, FailureMode: redisstore.FailClosed,
					ProbeInterval: 20 * time.Millisecond, ProbeMax: 50 * time.Millisecond})
				t.Cleanup(func() { _ = l.Close() })
				ctx := context.Background()
				// Concurrent Acquires of keys of every node: the pools hold
				// several connections, idle once they are done.
				within.Until(t, "concurrent Acquires of every node's keys decided by Redis", func() bool {
					var wg sync.WaitGroup
					var failed atomic.Bool
					for g := range 32 {
						wg.Go(func() {
							for i := range 4 {
								s, err := l.Acquire(ctx, fmt.Sprint("warm", g, ":", i))
								if err != nil || s.Release(ctx) != nil {
									failed.Store(true)
								}
							}
						})
					}
					wg.Wait()
					return !failed.Load()
				})

				f.Blackhole() // from now on, never resumed
				// A few Acquires, one at a time (a quiet hour): the breaker
				// opens after Failures of them, the other idle connections
				// untouched.
				for i := range 8 {
					_, err := l.Acquire(ctx, fmt.Sprint("during", i))
					require.ErrorIs(t, err, redisstore.ErrUnavailable)
				}
				f.Recover() // Redis answers again, on new connections
				took := untilAcquired(t, l)
				t.Logf("back on Redis %v after it answered again", took)
				if took >= 2500*time.Millisecond {
					return fmt.Errorf("back on Redis %v after it answered again, not within max(1 s, 4 × Timeout) and a trial: "+
						"before, the client's ReadTimeout (5 s), refused, or the bound once per idle connection", took)
				}
				return nil
			})
		})
	}
}
