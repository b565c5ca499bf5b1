package redisstore_test

import (
	"context"
	"testing"

	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackClusterEvictionOnOneMaster: each master of a Cluster has its
// own maxmemory-policy (a node replaced or restarted with another
// configuration). Check reports an evicting policy on any master, for
// the limits of that master's slots may be silently erased; it read the
// policy of whichever node the client sent CONFIG GET to.
func TestAttackClusterEvictionOnOneMaster(t *testing.T) {
	cl := redistest.LaunchCluster(t, 3)
	t.Parallel()
	cl.Wait(t)
	ctx := context.Background()
	for i, srv := range cl.Nodes {
		n := redis.NewClient(&redis.Options{Addr: srv.Addr()})
		policy := "noeviction"
		if i == len(cl.Nodes)-1 {
			policy = "allkeys-lru"
		}
		require.NoError(t, n.ConfigSet(ctx, "maxmemory-policy", policy).Err())
		require.NoError(t, n.Close())
	}
	c := cl.Client(t)
	// Each Check on a store of its own: whichever node it asks, every
	// one of them must see the evicting master.
	for range 6 {
		s, logs := faultStore(t, c, redisstore.Options{Timeout: noDeadline})
		require.NoError(t, s.Check(ctx))
		st := s.Stats()
		assert.True(t, st.Evicts, "evicting master reported (policy read: %q)", st.EvictionPolicy)
		assert.Equal(t, 1, logs.count("evicts keys"))
		require.NoError(t, s.Close())
	}
}
