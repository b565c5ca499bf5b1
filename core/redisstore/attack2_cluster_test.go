package redisstore_test

import (
	"context"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/faultproxy"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackBlackholedClusterAndRing: TestAttackBlackholedConnections for
// the clients that have no clone sharing their pool. A failover black-holes
// the connections open to every node of a real Cluster (or every shard of
// a Ring) while new connections reach nodes that answer. With go-redis's
// default ReadTimeout (5 s) the store stayed on its failure mode about
// 5 s; with reads that never time out, New refused the client. The store
// now sends with a client of its own made from the client's options,
// bounded by max(1 s, 4 × Timeout), and is back on Redis within about a
// second, whatever the client's timeouts.
func TestAttackBlackholedClusterAndRing(t *testing.T) {
	t.Parallel()
	cl := redistest.StartCluster(t, 3)
	shards := []*redistest.Server{redistest.Start(t), redistest.Start(t)}
	for _, tc := range []struct {
		name  string
		make  func(dialer) redis.UniversalClient
		addrs []string
	}{
		{"cluster, default options", func(d dialer) redis.UniversalClient {
			return redis.NewClusterClient(&redis.ClusterOptions{Addrs: cl.Addrs(), Dialer: d})
		}, cl.Addrs()},
		{"cluster, reads never time out", func(d dialer) redis.UniversalClient {
			return redis.NewClusterClient(&redis.ClusterOptions{Addrs: cl.Addrs(), Dialer: d, ReadTimeout: -1, WriteTimeout: -1})
		}, cl.Addrs()},
		{"universal client, cluster form", func(d dialer) redis.UniversalClient {
			return redis.NewUniversalClient(&redis.UniversalOptions{Addrs: cl.Addrs(), Dialer: d})
		}, cl.Addrs()},
		{"ring, default options", func(d dialer) redis.UniversalClient {
			return redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": shards[0].Addr(), "b": shards[1].Addr()}, Dialer: d})
		}, []string{shards[0].Addr(), shards[1].Addr()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := faultproxy.StartFailover(t, tc.addrs...)
			c := tc.make(f.Dial)
			t.Cleanup(func() { _ = c.Close() })
			s, _ := faultStore(t, c, redisstore.Options{Timeout: 50 * time.Millisecond, FailureMode: redisstore.FailLocal,
				ProbeInterval: 20 * time.Millisecond, ProbeMax: 50 * time.Millisecond})
			l := faultLimiter(t, s, wide)
			ctx := context.Background()
			within.Until(t, "decisions of every node's keys on Redis", func() bool {
				for i := range 64 {
					if _, err := l.Allow(ctx, fmt.Sprint("warm", i)); err != nil || s.Down() {
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
						_, err := l.Allow(ctx, fmt.Sprint(g, ":", i))
						assert.NoError(t, err)
					}
				})
			}
			within.Wait(t, &wg, "the test's goroutines")
			assert.True(t, s.Down())
			cn := startCanary()
			f.Recover() // every node answers again, on new connections
			took := untilOnRedis(t, s, l, 30*time.Second)
			t.Logf("back on Redis %v after it answered again", took)
			if cn.kept(t, 100*time.Millisecond) {
				assert.Less(t, took, 2500*time.Millisecond, "max(1 s, 4 × Timeout) and a trial: before, the client's ReadTimeout (5 s), or refused")
			}
			require.NoError(t, s.Close())
		})
	}
}

// dialer is a go-redis Options.Dialer.
type dialer = func(ctx context.Context, network, addr string) (net.Conn, error)

// TestAttackEveryClientKindAccepted: New accepts every kind of client
// whatever its timeouts (a Cluster or Ring client whose reads never time
// out was refused: no clone with timeouts exists for them; the store now
// makes a client of its own, see TestAttackBlackholedClusterAndRing).
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
