package core_test

import (
	"context"
	"testing"

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
