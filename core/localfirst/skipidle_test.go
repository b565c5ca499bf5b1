package localfirst_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/localfirst"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSkipIdleSkipsQuietKeys: with SkipIdle, a round sends nothing for a
// tracked key with nothing to push and a live claim; the key is read
// again once it has units to push, or SyncPeriod + Timeout after its last
// read, when the other nodes' counts reach its view.
func TestSkipIdleSkipsQuietKeys(t *testing.T) {
	t.Parallel()
	_, client := startRedis(t)
	clk := coretest.NewClock(t0)
	p := core.MustPolicy("idle", core.Limit{Name: "idle", Algorithm: core.FixedWindow{Quota: 100, Window: time.Minute}})
	// The rounds must succeed: Timeout bounds each in real time as well
	// as setting, on the fake clock, when a quiet key is read again (it
	// was 500 ms, which a round on a loaded machine can reach).
	const period, timeout = 100 * time.Millisecond, localfirst.MaxTimeout
	ns := newNodes(t, client, clk, p, 2, localfirst.Options{Prefix: "idle:", SkipIdle: true, SyncPeriod: period, Timeout: timeout})
	a, b := ns[0], ns[1]
	ctx := context.Background()
	remaining := func(n node) int64 {
		t.Helper()
		r, err := n.l.Peek(ctx, "k", 1)
		require.NoError(t, err)
		return r.Remaining
	}

	assert.Equal(t, 3, takeAll(t, a, "k", 3))
	require.NoError(t, a.s.Sync(ctx))
	calls := a.s.Stats().Calls
	assert.NotZero(t, calls, "units to push: the key is read")

	require.NoError(t, a.s.Sync(ctx))
	assert.Equal(t, calls, a.s.Stats().Calls, "nothing to push, a live claim: no call")

	assert.Equal(t, 2, takeAll(t, b, "k", 2))
	require.NoError(t, b.s.Sync(ctx))
	clk.Advance(period)
	require.NoError(t, a.s.Sync(ctx))
	assert.Equal(t, calls, a.s.Stats().Calls, "still quiet on a")
	assert.Equal(t, int64(100-3-1), remaining(a), "b's units have not reached a")
	assert.Equal(t, 1, takeAll(t, a, "k", 1), "a decides on its claim")

	require.NoError(t, a.s.Sync(ctx))
	assert.Equal(t, calls+1, a.s.Stats().Calls, "a unit to push: the key is read")
	assert.Equal(t, int64(100-6-1), remaining(a), "and b's units with it")

	// Quiet again: read SyncPeriod + Timeout after the last read.
	assert.Equal(t, 4, takeAll(t, b, "k", 4))
	require.NoError(t, b.s.Sync(ctx))
	clk.Advance(timeout)
	require.NoError(t, a.s.Sync(ctx))
	assert.Equal(t, calls+1, a.s.Stats().Calls)
	clk.Advance(period)
	require.NoError(t, a.s.Sync(ctx))
	assert.Equal(t, calls+2, a.s.Stats().Calls, "the claim would lapse before the next round: read")
	assert.Equal(t, int64(100-10-1), remaining(a))
}
