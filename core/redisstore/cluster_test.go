package redisstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCluster runs the conformance suite (short: see
// TestConformanceNoFunctions) and concurrentTotals on a 3-master Redis
// Cluster and requires that no node ever answered CROSSSLOT.
func TestCluster(t *testing.T) {
	cl := redistest.LaunchCluster(t, 3) // it forms while the serial tests run
	t.Parallel()
	cl.Wait(t)
	addrs := cl.Addrs()
	c := cl.Client(t)
	ctx := context.Background()

	cs := newStore(t, c, redisstore.Options{CallerClock: true, ExpirySlack: time.Hour})
	coretest.RunShort(t, func(*testing.T) core.Store { return cs })
	checkTTLs(t, c)
	// A policy of several limits, over many keys: every slot owner sees
	// multi-key scripts.
	s := newStore(t, c, redisstore.Options{})
	p := core.MustPolicy("multi",
		core.Limit{Name: "a", Algorithm: core.GCRA{Rate: core.PerSecond(10)}},
		core.Limit{Name: "b", Algorithm: core.FixedWindow{Quota: 100, Window: time.Minute}},
		core.Limit{Name: "c", Algorithm: core.SlidingWindow{Quota: 100, Window: time.Minute}})
	l := limiterOn(t, s, p)
	for i := range 300 {
		r, err := l.Allow(ctx, fmt.Sprint("key", i))
		require.NoError(t, err)
		require.True(t, r.Allowed)
	}
	// Simultaneous decisions coalesced into batch calls, which must keep
	// to one slot each.
	concurrentTotals(t, c, redisstore.Options{}, true)
	for _, a := range addrs {
		n := redis.NewClient(&redis.Options{Addr: a})
		stats, err := n.Info(ctx, "errorstats").Result()
		n.Close()
		require.NoError(t, err)
		assert.NotContains(t, stats, "CROSSSLOT", "node %s", a)
		n = redis.NewClient(&redis.Options{Addr: a})
		keys, err := n.DBSize(ctx).Result()
		n.Close()
		require.NoError(t, err)
		assert.Positive(t, keys, "node %s holds keys: the slots are spread", a)
	}
}
