package core_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackOverrideForgetShadowState: a name was forgotten (for a new
// one, MaxPolicies reached) once its enforced limits had recovered, its
// shadow limits not looked at: a daily quota dry-run as a shadow beside a
// per-second limit lost its count when the name was forgotten, and, its
// limiter retired past return, the tenant's key came back to a shadow
// reporting a fresh day, the denials the dry run was there to show
// unreported. A name whose shadow limits hold state is in use as one
// whose enforced limits do.
func TestAttackOverrideForgetShadowState(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := coretest.NewClock(t0)
	pol := func(name string) *core.Policy {
		return core.MustPolicy(name,
			core.Limit{Name: "second", Algorithm: core.FixedWindow{Quota: 100, Window: time.Second}},
			core.Limit{Name: "day", Algorithm: core.FixedWindow{Quota: 3, Window: 24 * time.Hour}, Shadow: true})
	}
	provider := func(_ context.Context, key string) (*core.Policy, bool, error) { return pol(key), true, nil }
	o, err := core.NewOverrides(pol("default"), provider,
		core.OverrideOptions{MaxPolicies: 1, TTL: time.Minute}, core.WithClock(clk))
	require.NoError(t, err)

	for range 3 { // the tenant spends its day, as the shadow counts it
		r, err := o.Allow(ctx, "tenant")
		require.NoError(t, err)
		require.True(t, r.Allowed)
	}
	// Within the day, other tenants come and go, one a few minutes: the
	// tenant's per-second limit recovered, its daily shadow has not.
	for _, other := range []string{"a", "b", "c"} {
		clk.Advance(5 * time.Minute)
		_, err := o.Allow(ctx, other)
		if err != nil {
			require.ErrorIs(t, err, core.ErrInvalidConfig, "refused: a name in use holds its place")
		}
	}
	clk.Advance(5 * time.Minute)
	r, err := o.Allow(ctx, "tenant")
	require.NoError(t, err)
	require.True(t, r.Allowed)
	assert.True(t, r.ShadowDenied(), "the day's fourth request: its shadow denies it, as before the forget")
}
