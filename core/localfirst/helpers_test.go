package localfirst_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/localfirst"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// t0 is the instant the tests start at: a minute boundary.
var t0 = time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)

// node is one simulated process: a store and a limiter of one policy on
// it, reading clk.
type node struct {
	s *localfirst.Store
	l *core.Limiter
}

func newClient(t *testing.T, addr string) *redis.Client {
	c := redis.NewClient(&redis.Options{
		Addr: addr, ContextTimeoutEnabled: true, MaxRetries: -1,
		DialTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second,
	})
	t.Cleanup(func() { c.Close() })
	return c
}

// newNodes returns n nodes deciding p through client, each with a store of
// its own, Nodes = n, and the clock clk. A Timeout left 0 is MaxTimeout:
// no round a test expects to succeed fails on a loaded machine.
func newNodes(t *testing.T, client redis.UniversalClient, clk *coretest.Clock, p *core.Policy, n int, opts localfirst.Options) []node {
	t.Helper()
	opts.Nodes, opts.Clock = n, clk
	if opts.Timeout == 0 {
		opts.Timeout = localfirst.MaxTimeout
	}
	ns := make([]node, n)
	for i := range ns {
		s, err := localfirst.New(client, opts)
		require.NoError(t, err)
		l, err := core.NewLimiter(p, core.WithStore(s), core.WithClock(clk))
		require.NoError(t, err)
		ns[i] = node{s: s, l: l}
	}
	return ns
}

// syncAll runs one round on every node, in order, and requires success.
func syncAll(t *testing.T, ns []node) {
	t.Helper()
	for _, n := range ns {
		require.NoError(t, n.s.Sync(context.Background()))
	}
}

// takeAll takes one unit of key at n until a denial or max, returning the
// units admitted.
func takeAll(t *testing.T, n node, key string, max int) int {
	t.Helper()
	for i := 0; i < max; i++ {
		r, err := n.l.Allow(context.Background(), key)
		require.NoError(t, err)
		if !r.Allowed {
			return i
		}
	}
	return max
}

func startRedis(t *testing.T) (*redistest.Server, *redis.Client) {
	srv := redistest.Start(t)
	return srv, srv.Client(t)
}
