package localfirst_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/localfirst"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCluster: on a 3-master Cluster, every script call's keys share a
// hash slot (one bucket's tag), the buckets spread over the masters, and
// two nodes agree on 64 keys of a window limit and of a GCRA after their
// rounds; Check passes.
func TestCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Redis Cluster")
	}
	cl := redistest.LaunchCluster(t, 3) // it forms while the serial tests run
	t.Parallel()
	cl.Wait(t)
	client := cl.Client(t)
	clk := coretest.NewClock(t0)
	p := core.MustPolicy("c", core.Limit{Name: "c", Algorithm: core.SlidingWindow{Quota: 10, Window: time.Minute}})
	ns := newNodes(t, client, clk, p, 2, localfirst.Options{Buckets: 16, MaxBatch: 8})
	g := core.MustPolicy("g", core.Limit{Name: "g", Algorithm: core.GCRA{Rate: core.PerMinute(10)}})
	gs := make([]*core.Limiter, len(ns))
	for i, n := range ns {
		l, err := core.NewLimiter(g, core.WithStore(n.s), core.WithClock(clk))
		require.NoError(t, err)
		gs[i] = l
	}
	const keys = 64
	for k := 0; k < keys; k++ {
		assert.Equal(t, 3, takeAll(t, ns[k%2], fmt.Sprint("key", k), 3))
		assert.Equal(t, 1, takeAll(t, ns[(k+1)%2], fmt.Sprint("key", k), 1))
		for _, take := range [][2]int{{k % 2, 3}, {(k + 1) % 2, 1}} {
			for range take[1] {
				r, err := gs[take[0]].Allow(context.Background(), fmt.Sprint("key", k))
				require.NoError(t, err)
				require.True(t, r.Allowed)
			}
		}
	}
	syncAll(t, ns)
	syncAll(t, ns)
	for i, n := range ns {
		for k := 0; k < keys; k++ {
			r, err := n.l.Peek(context.Background(), fmt.Sprint("key", k), 1)
			require.NoError(t, err)
			assert.Equal(t, int64(5), r.Remaining, "10 − 4, less the peek's unit")
			r, err = gs[i].Peek(context.Background(), fmt.Sprint("key", k), 1)
			require.NoError(t, err)
			assert.Equal(t, int64(5), r.Remaining, "GCRA: 10 − 4, less the peek's unit")
		}
	}
	masters := 0
	for _, srv := range cl.Nodes {
		c := srv.Client(t)
		n, err := c.DBSize(context.Background()).Result()
		require.NoError(t, err)
		if n > 0 {
			masters++
		}
	}
	assert.Equal(t, 3, masters, "the buckets spread over every master")
	// Check passes on a Cluster (the script loaded on every master, the
	// probe's hash in one slot), on the system clock.
	checked, err := localfirst.New(client, localfirst.Options{Nodes: 2, Timeout: localfirst.MaxTimeout})
	require.NoError(t, err)
	t.Cleanup(func() { _ = checked.Close() })
	assert.NoError(t, checked.Check(context.Background()))
	assert.GreaterOrEqual(t, ns[0].s.Stats().Calls, uint64(8), "at least one call per bucket and MaxBatch")
}
