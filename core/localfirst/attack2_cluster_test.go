package localfirst_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/localfirst"
	"github.com/floodgate-go/floodgate/internal/canary"
	"github.com/floodgate-go/floodgate/internal/faultproxy"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackBlackholedClusterRound: TestAttackBlackholedRound on a real
// Cluster, whose client has no clone sharing its pool. With go-redis's
// default ReadTimeout (5 s) a round on black-holed connections lasted
// 5 s, five times its Timeout of 1 s (the node's units unsynced
// meanwhile, its next round late); with reads that never time out, New
// refused the client. The store now sends with a client of its own made
// from the client's options, bounded by Timeout: the round ends by about
// Timeout, and the next one, on new connections, reconverges.
func TestAttackBlackholedClusterRound(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Redis Cluster")
	}
	cl := redistest.LaunchCluster(t, 3) // it forms while the serial tests run
	t.Parallel()
	cl.Wait(t)
	for _, tc := range []struct {
		name string
		opts redis.ClusterOptions
	}{
		{"default options", redis.ClusterOptions{}},
		{"reads never time out", redis.ClusterOptions{ReadTimeout: -1, WriteTimeout: -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each its own proxy and key prefix
			f := faultproxy.StartFailover(t, cl.Addrs()...)
			o := tc.opts
			o.Addrs, o.Dialer, o.MaxRetries = cl.Addrs(), f.Dial, -1
			c := redis.NewClusterClient(&o)
			t.Cleanup(func() { _ = c.Close() })
			clk := coretest.NewClock(t0)
			p := core.MustPolicy("b", core.Limit{Name: "b", Algorithm: core.FixedWindow{Quota: 100, Window: time.Minute}})
			// A Timeout a loaded machine's rounds on a healthy Cluster
			// never reach (200 ms did not hold under -race at load 5:
			// the first round after the recovery, dialling anew, missed
			// it), still well apart from the 5 s of the client's
			// default ReadTimeout.
			const timeout = time.Second
			ns := newNodes(t, c, clk, p, 2, localfirst.Options{Timeout: timeout, Buckets: 4,
				Prefix: "floodgate:lf:" + tc.name + ":"})
			for _, n := range ns {
				t.Cleanup(func() { _ = n.s.Close() })
			}
			// Keys in every bucket: every node's connections are used.
			keys := make([]string, 8)
			for i := range keys {
				keys[i] = fmt.Sprint("k", i)
				assert.Equal(t, 10, takeAll(t, ns[0], keys[i], 10))
				assert.Equal(t, 1, takeAll(t, ns[1], keys[i], 1))
			}
			syncAll(t, ns)
			syncAll(t, ns) // both nodes track the keys, with claims

			f.Blackhole() // from now on, never resumed
			for _, k := range keys {
				assert.Equal(t, 10, takeAll(t, ns[0], k, 10))
			}
			cn := canary.Start()
			start := time.Now()
			err := ns[0].s.Sync(context.Background())
			took := time.Since(start)
			assert.Error(t, err, "a round on black-holed connections")
			t.Logf("the round on black-holed connections ended after %v (Timeout %v)", took, timeout)
			if cn.Kept(t, 100*time.Millisecond) {
				assert.Less(t, took, 3*time.Second, "about Timeout: before, the client's ReadTimeout (5 s), or refused")
			}
			f.Recover()
			require.NoError(t, ns[0].s.Sync(context.Background()), "the next round, on new connections")
			// Reconverged: the fleet admits at most the limit of each key,
			// the 21 included.
			total := 21 * len(keys)
			for range 3 {
				syncAll(t, ns)
				for _, n := range ns {
					for _, k := range keys {
						total += takeAll(t, n, k, 100)
					}
				}
			}
			assert.Equal(t, 100*len(keys), total, "the limit, no more")
		})
	}
}
