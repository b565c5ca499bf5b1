package core_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/require"
)

// TestAttackOverrideForgottenNameFaultToDefault: a provider failing for a
// key keeps it on the policy that decided it before, so that a key held
// to less than the default cannot escape it by a fault. Once its name was
// forgotten (for new ones, MaxPolicies reached) and its limiter retired
// past return, such a fault moved the key, still cached on that limiter,
// to the default: a tenant restricted to 1 a minute had the default's
// 100 for as long as the provider failed. Its override now decides it
// again, or the key is refused when no name can give way.
func TestAttackOverrideForgottenNameFaultToDefault(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := coretest.NewClock(t0)
	pol := func(name string, quota int64) *core.Policy {
		return core.MustPolicy(name, core.Limit{Algorithm: core.FixedWindow{Quota: quota, Window: time.Minute}})
	}
	var failing atomic.Bool
	provider := strictUnlessFailing("restricted", pol, &failing)
	o, err := core.NewOverrides(pol("default", 100), provider,
		core.OverrideOptions{MaxPolicies: 1, TTL: time.Minute}, core.WithClock(clk))
	require.NoError(t, err)

	r, err := o.Allow(ctx, "restricted")
	require.NoError(t, err)
	require.True(t, r.Allowed)
	for _, other := range []string{"a", "b"} { // "strict" forgotten, then retired past return
		clk.Advance(2 * time.Minute)
		_, err := o.Allow(ctx, other)
		require.NoError(t, err)
	}
	clk.Advance(2 * time.Minute)
	failing.Store(true)
	admitted := 0
	for range 5 {
		r, err := o.Allow(ctx, "restricted")
		if err == nil && r.Allowed {
			admitted++
		}
	}
	require.LessOrEqual(t, admitted, 1, "its override's 1 a minute, not the default's 100")
}
