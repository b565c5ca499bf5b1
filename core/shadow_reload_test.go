package core_test

import (
	"context"
	"runtime/debug"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSetPolicyShadowLimits: SetPolicy may add, keep, change and remove
// shadow limits. A shadow limit kept as it was keeps its state; one added
// or changed starts afresh and is decided from the next request on (also
// on the in-memory store's hot path); none ever changes the enforced
// decision.
func TestSetPolicyShadowLimits(t *testing.T) {
	ctx := context.Background()
	enforced := core.Limit{Name: "minute", Algorithm: core.FixedWindow{Quota: 100, Window: 60e9}}
	s2 := core.Limit{Name: "s", Algorithm: core.FixedWindow{Quota: 2, Window: 60e9}, Shadow: true}
	s3 := core.Limit{Name: "s", Algorithm: core.FixedWindow{Quota: 3, Window: 60e9}, Shadow: true}
	for _, obs := range []bool{false, true} {
		clk := coretest.NewClock(coretest.T0)
		opts := []core.Option{core.WithClock(clk)}
		if obs {
			opts = append(opts, core.WithTopKeys(core.TopKeysOptions{}))
		}
		l, err := core.NewLimiter(core.MustPolicy("p", enforced), opts...)
		require.NoError(t, err)
		take := func() *core.Result {
			res, err := l.Allow(ctx, "k")
			require.NoError(t, err)
			require.True(t, res.Allowed, "the enforced limit admits")
			return &res
		}
		take()
		require.NoError(t, l.SetPolicy(core.MustPolicy("p", enforced, s2))) // added
		for i := range 3 {
			assert.Equal(t, i == 2, take().ShadowDenied(), "take %d under a new shadow 2/min", i)
		}
		require.NoError(t, l.SetPolicy(core.MustPolicy("p", enforced, s2))) // kept: its state stays
		assert.True(t, take().ShadowDenied())
		require.NoError(t, l.SetPolicy(core.MustPolicy("p", enforced, s3))) // changed: afresh
		for i := range 4 {
			assert.Equal(t, i == 3, take().ShadowDenied(), "take %d under a changed shadow 3/min", i)
		}
		require.NoError(t, l.SetPolicy(core.MustPolicy("p", enforced))) // removed
		res := take()
		assert.False(t, res.ShadowDenied())
		assert.Nil(t, res.ShadowLimits())
		assert.Equal(t, int64(100-1-3-1-4-1), res.Remaining, "the enforced count went on through every change")
	}
}

// TestCheckPolicyBindsNothing: CheckPolicy changes nothing, the store
// included. It bound the checked policy's new shadow limits: three checks
// left the memory store three tables no limiter uses, reported by
// AppendUsage (memory_max_keys three times too high until a GC; found by
// an adversarial review). A store that may refuse a shadow limit now says
// so through CheckBind, binding nothing.
func TestCheckPolicyBindsNothing(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // no GC clears the weak references meanwhile
	ms, err := core.NewMemoryStore(core.MemoryOptions{MaxKeys: 1024, Shards: 1})
	require.NoError(t, err)
	enforced := core.Limit{Name: "a", Algorithm: core.FixedWindow{Quota: 10, Window: time.Minute}}
	l, err := core.NewLimiter(core.MustPolicy("p", enforced), core.WithStore(ms))
	require.NoError(t, err)
	before := ms.AppendUsage(nil)
	withShadow := core.MustPolicy("p", enforced,
		core.Limit{Name: "s", Algorithm: core.FixedWindow{Quota: 5, Window: time.Minute}, Shadow: true})
	for range 3 {
		require.NoError(t, l.CheckPolicy(withShadow))
	}
	assert.Equal(t, before, ms.AppendUsage(nil), "the store's tables")
	require.NoError(t, l.SetPolicy(withShadow))
	assert.Len(t, ms.AppendUsage(nil), len(before)+1, "SetPolicy binds the shadow limit")
}
