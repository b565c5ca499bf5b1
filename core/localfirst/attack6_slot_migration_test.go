package localfirst_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/localfirst"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClusterSlotMigration: two nodes keep counting a key while the hash
// slot of its hashes migrates to another master (MIGRATING/IMPORTING, the
// keys moved, the slot handed over): every round succeeds (a call on the
// importing master follows ASK), no unit is lost or counted twice, and
// both nodes read the fleet's count after it.
func TestClusterSlotMigration(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Redis Cluster")
	}
	cl := redistest.LaunchCluster(t, 2)
	t.Parallel()
	cl.Wait(t)
	client := cl.Client(t)
	ctx := context.Background()
	clk := coretest.NewClock(t0)
	p := core.MustPolicy("mig", core.Limit{Name: "w", Algorithm: core.FixedWindow{Quota: 100, Window: time.Hour}})
	ns := newNodes(t, client, clk, p, 2, localfirst.Options{Buckets: 1, Prefix: "mig:"})
	step := func() {
		for _, n := range ns {
			require.Equal(t, 10, takeAll(t, n, "k", 10))
		}
		syncAll(t, ns)
		syncAll(t, ns)
	}
	step()

	// The master holding the key's hash, and the other.
	var src, dst int
	var key string
	for i, srv := range cl.Nodes {
		keys, err := srv.Client(t).Keys(ctx, "mig:*").Result()
		require.NoError(t, err)
		if len(keys) > 0 {
			src, dst, key = i, 1-i, keys[0]
		}
	}
	require.NotEmpty(t, key)
	sc, dc := cl.Nodes[src].Client(t), cl.Nodes[dst].Client(t)
	slot, err := sc.ClusterKeySlot(ctx, key).Result()
	require.NoError(t, err)
	srcID, err := sc.Do(ctx, "CLUSTER", "MYID").Text()
	require.NoError(t, err)
	dstID, err := dc.Do(ctx, "CLUSTER", "MYID").Text()
	require.NoError(t, err)
	require.NoError(t, dc.Do(ctx, "CLUSTER", "SETSLOT", slot, "IMPORTING", srcID).Err())
	require.NoError(t, sc.Do(ctx, "CLUSTER", "SETSLOT", slot, "MIGRATING", dstID).Err())
	step() // migrating: the keys are still on the source

	keys, err := sc.ClusterGetKeysInSlot(ctx, int(slot), 100).Result()
	require.NoError(t, err)
	require.NotEmpty(t, keys)
	addr := cl.Nodes[dst].Addr()
	port, err := strconv.Atoi(addr[strings.LastIndexByte(addr, ':')+1:])
	require.NoError(t, err)
	args := []any{"MIGRATE", "127.0.0.1", port, "", 0, 5000, "KEYS"}
	for _, k := range keys {
		args = append(args, k)
	}
	require.NoError(t, sc.Do(ctx, args...).Err())
	step() // moved, the slot not handed over yet: ASK

	require.NoError(t, dc.Do(ctx, "CLUSTER", "SETSLOT", slot, "NODE", dstID).Err())
	require.NoError(t, sc.Do(ctx, "CLUSTER", "SETSLOT", slot, "NODE", dstID).Err())
	step() // handed over: MOVED, then the new slot map

	for i, n := range ns {
		r, err := n.l.Peek(ctx, "k", 1)
		require.NoError(t, err)
		assert.EqualValues(t, 100-80-1, r.Remaining, "node %d: the fleet's 80 units, counted once (less the peek's unit)", i)
		assert.Zero(t, n.s.Stats().Failed, "node %d: every round succeeded", i)
	}
}
