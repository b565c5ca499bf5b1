package localfirst_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/localfirst"
	"github.com/floodgate-go/floodgate/core/store"
	"github.com/stretchr/testify/require"
)

// TestAttackIdleRescansRecovered: core.Overrides asks Idle of up to four
// unused names' tables for each new name it meets while MaxPolicies are
// in use, under the lock every resolve and refund waits for. Idle weighed
// every entry of each shard up to the first that held state and kept
// them all, so that the next call weighed them again (100,000 recovered
// keys and one live: 2.2-2.6 ms a call, every call). It now forgets the
// entries that weigh nothing and hold nothing to sync, as a full shard
// evicts them first: the next call looks at the live ones only.
func TestAttackIdleRescansRecovered(t *testing.T) {
	t.Parallel()
	_, client := startRedis(t)
	ctx := context.Background()
	clk := coretest.NewClock(t0)
	// MaxKeys 16: one shard, so that the one live key shares it.
	s, err := localfirst.New(client, localfirst.Options{Nodes: 1, Clock: clk, Timeout: localfirst.MaxTimeout,
		Prefix: "idlerescan:", MaxKeys: 16})
	require.NoError(t, err)
	tb, err := s.Bind(core.MustPolicy("x", core.Limit{Name: "m", Algorithm: core.FixedWindow{Quota: 10, Window: time.Minute}}))
	require.NoError(t, err)
	take := func(key string) {
		_, err := tb.Do(ctx, store.Request{Op: store.OpTake, Key: key, Cost: 1, Now: clk.Now().UnixNano()})
		require.NoError(t, err)
	}
	for i := range 10 {
		take(fmt.Sprint("k", i))
	}
	require.NoError(t, s.Sync(ctx))
	require.NoError(t, s.Sync(ctx))
	clk.Advance(2 * time.Minute) // their window and claims over
	take("live")
	require.Equal(t, 11, localfirst.Held(s))

	idler, ok := tb.(store.Idler)
	require.True(t, ok)
	require.False(t, idler.Idle(clk.Now().UnixNano()), "the live key holds its window")
	require.Equal(t, 1, localfirst.Held(s), "the recovered entries, weighed again at every call")
	require.False(t, idler.Idle(clk.Now().UnixNano()))
}
