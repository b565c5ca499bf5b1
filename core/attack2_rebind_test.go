package core_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMemoryTableRebinder: a memory store's table used by another store
// (the Redis store's FailLocal limiter, which decides through store.Table
// a policy scaled to the process's share) changes policy through
// core.Rebinder, counts kept, as a Limiter changes it on the memory store:
// a key that took 6 of 10 gets 2 more under 8, and 1 more under 9 after
// that; a key never seen gets the new quota; a change of window is
// refused. Before, a memory table had no Rebind: the Redis store made a
// fresh local limiter at every SetPolicy, a fresh share of every limit
// during an outage.
func TestMemoryTableRebinder(t *testing.T) {
	t.Parallel()
	ms, err := core.NewMemoryStore(core.MemoryOptions{})
	require.NoError(t, err)
	fw := func(q int64, w time.Duration) *core.Policy {
		return core.MustPolicy("p", core.Limit{Name: "w", Algorithm: core.FixedWindow{Quota: q, Window: w}})
	}
	tb, err := ms.Bind(fw(10, time.Hour))
	require.NoError(t, err)
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).UnixNano()
	takes := func(tb store.Table, key string) int {
		n := 0
		for ; n < 100; n++ {
			d, err := tb.Do(context.Background(), store.Request{Op: store.OpTake, Key: key, Cost: 1, Now: now})
			require.NoError(t, err)
			if !d.Outcomes[0].Allowed {
				break
			}
		}
		return n
	}
	for range 6 {
		_, err := tb.Do(context.Background(), store.Request{Op: store.OpTake, Key: "k", Cost: 1, Now: now})
		require.NoError(t, err)
	}
	lowered, err := tb.(core.Rebinder).Rebind(fw(8, time.Hour))
	require.NoError(t, err)
	assert.Equal(t, 2, takes(lowered, "k"), "6 of 8 taken: 2 left")
	raised, err := lowered.(core.Rebinder).Rebind(fw(9, time.Hour))
	require.NoError(t, err)
	assert.Equal(t, 1, takes(raised, "k"), "8 of 9 taken: 1 left")
	assert.Equal(t, 9, takes(raised, "new"), "a key never seen: the new quota")
	_, err = raised.(core.Rebinder).Rebind(fw(9, time.Minute))
	assert.ErrorIs(t, err, core.ErrPolicyChange, "another window: the state cannot be read under it")
}
