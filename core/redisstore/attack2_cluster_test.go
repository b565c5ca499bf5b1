package redisstore_test

import (
	"context"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/canary"
	"github.com/floodgate-go/floodgate/internal/faultproxy"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackBlackholedEveryClient: TestAttackBlackholedConnections for
// every kind of client, each with a pool of several idle connections (a
// store that has served concurrent decisions). A failover black-holes the
// connections open to Redis (to every node of a real Cluster, every shard
// of a Ring) while new connections reach servers that answer; the store
// must be back on Redis within about a second of their answering. Before:
//   - a Cluster or Ring client was used as it was: the store waited the
//     client's ReadTimeout (5 s by default), and one whose reads never
//     time out was refused by New. It now sends with a client of its own
//     made from the client's options, bounded by max(1 s, 4 × Timeout);
//   - whatever the client, each idle connection black-holed with the
//     others cost a trial of the breaker the whole bound (1 s): the pool's
//     connections were given up one trial at a time (4 s with 8 idle
//     connections). A round trip that times out now makes the store PING
//     every idle connection at once, so that they are given up together.
func TestAttackBlackholedEveryClient(t *testing.T) {
	cl := redistest.LaunchCluster(t, 3) // it forms while the serial tests run
	t.Parallel()
	srv := redistest.Start(t)
	cl.Wait(t)
	shards := []*redistest.Server{redistest.Start(t), redistest.Start(t)}
	ring := map[string]string{"a": shards[0].Addr(), "b": shards[1].Addr()}
	for _, tc := range []struct {
		name  string
		make  func(dialer) redis.UniversalClient
		addrs []string
	}{
		{"client, default options", func(d dialer) redis.UniversalClient {
			return redis.NewClient(&redis.Options{Addr: srv.Addr(), Dialer: d})
		}, []string{srv.Addr()}},
		{"client, context deadlines", func(d dialer) redis.UniversalClient {
			return redis.NewClient(&redis.Options{Addr: srv.Addr(), Dialer: d, ContextTimeoutEnabled: true})
		}, []string{srv.Addr()}},
		{"cluster, default options", func(d dialer) redis.UniversalClient {
			return redis.NewClusterClient(&redis.ClusterOptions{Addrs: cl.Addrs(), Dialer: d})
		}, cl.Addrs()},
		{"cluster, reads never time out", func(d dialer) redis.UniversalClient {
			return redis.NewClusterClient(&redis.ClusterOptions{Addrs: cl.Addrs(), Dialer: d, ReadTimeout: -1, WriteTimeout: -1})
		}, cl.Addrs()},
		{"cluster, context deadlines", func(d dialer) redis.UniversalClient {
			return redis.NewClusterClient(&redis.ClusterOptions{Addrs: cl.Addrs(), Dialer: d, ContextTimeoutEnabled: true})
		}, cl.Addrs()},
		{"universal client, cluster form", func(d dialer) redis.UniversalClient {
			return redis.NewUniversalClient(&redis.UniversalOptions{Addrs: cl.Addrs(), Dialer: d})
		}, cl.Addrs()},
		{"ring, default options", func(d dialer) redis.UniversalClient {
			return redis.NewRing(&redis.RingOptions{Addrs: ring, Dialer: d})
		}, []string{shards[0].Addr(), shards[1].Addr()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each its own proxy and key prefix (faultStore's)
			canary.Rounds(t, 100*time.Millisecond, func() error {
				f := faultproxy.StartFailover(t, tc.addrs...)
				c := tc.make(f.Dial)
				t.Cleanup(func() { _ = c.Close() })
				s, _ := faultStore(t, c, redisstore.Options{Timeout: 50 * time.Millisecond, FailureMode: redisstore.FailLocal, LocalShare: 1,
					ProbeInterval: 20 * time.Millisecond, ProbeMax: 50 * time.Millisecond})
				l := faultLimiter(t, s, wide)
				ctx := context.Background()
				// Concurrent decisions of keys of every node: the pools hold
				// several connections, idle once the decisions are made. A
				// round trip that misses the 50 ms Timeout keeps its
				// connection (it goes on until the bound), so no pass of
				// decisions that all met it is awaited (at -cpu 1 under
				// load none came in 2 minutes, in 4 of the 7 cases): a
				// pass Redis decided a quarter of, then the store on Redis.
				within.Until(t, "concurrent decisions of every node's keys, a quarter of them on Redis", func() bool {
					var wg sync.WaitGroup
					var onRedis atomic.Int64
					for g := range 32 {
						wg.Go(func() {
							for i := range 8 {
								r, err := l.Allow(ctx, fmt.Sprint("warm", g, ":", i))
								if err == nil && r.Source() == core.SourceStore {
									onRedis.Add(1)
								}
							}
						})
					}
					wg.Wait()
					return onRedis.Load() >= 32*8/4
				})
				within.Until(t, "a decision on Redis", func() bool { // (a decision makes the breaker's trial)
					_, err := l.Allow(ctx, "up")
					return err == nil && !s.Down()
				})

				f.Blackhole() // from now on, never resumed
				decideAll(t, l, 32, 5, false)
				assert.True(t, s.Down())
				f.Recover() // Redis answers again, on new connections
				took := untilOnRedis(t, s, l, 30*time.Second)
				t.Logf("back on Redis %v after it answered again", took)
				require.NoError(t, s.Close())
				if took >= 2500*time.Millisecond {
					return fmt.Errorf("back on Redis %v after it answered again, not within max(1 s, 4 × Timeout) and a trial: "+
						"before, the client's ReadTimeout (5 s), refused, or the bound once per idle connection", took)
				}
				return nil
			})
		})
	}
}

// TestAttackEveryClientKindAccepted: New accepts every kind of client
// whatever its timeouts (a Cluster or Ring client whose reads never time
// out was refused: no clone with timeouts exists for them; the store now
// makes a client of its own, see TestAttackBlackholedEveryClient).
func TestAttackEveryClientKindAccepted(t *testing.T) {
	t.Parallel()
	addrs := []string{"127.0.0.1:1"}
	for name, c := range map[string]redis.UniversalClient{
		"cluster, reads never time out":  redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, ReadTimeout: -1}),
		"cluster, no deadlines":          redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, ReadTimeout: -2, ContextTimeoutEnabled: true}),
		"cluster, writes never time out": redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, WriteTimeout: -1}),
		"ring, reads never time out":     redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": addrs[0]}, ReadTimeout: -1}),
		"ring, defaults":                 redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": addrs[0]}}),
		"client, no deadlines":           redis.NewClient(&redis.Options{Addr: addrs[0], ReadTimeout: -2, WriteTimeout: -2}),
	} {
		t.Cleanup(func() { _ = c.Close() })
		s, err := redisstore.New(c, redisstore.Options{})
		if assert.NoError(t, err, name) {
			assert.NoError(t, s.Close())
		}
	}
}

// dialer is a go-redis Options.Dialer.
type dialer = func(ctx context.Context, network, addr string) (net.Conn, error)
