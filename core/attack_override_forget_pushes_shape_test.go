package core_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/require"
)

// TestAttackOverrideForgottenNamesPushShapeOut: a name whose shapes take
// turns (a "custom" plan of per-tenant windows) finds each shape's
// limiter, and its keys' state, again among the last MaxPolicies
// replaced. Names forgotten for new ones were retired in the same list:
// other tenants coming and going pushed the replaced limiter, still
// holding a tenant's hour, past return, and its next turn started the
// tenant afresh (20 of a 10-an-hour quota within minutes).
func TestAttackOverrideForgottenNamesPushShapeOut(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := coretest.NewClock(t0)
	hourly := core.MustPolicy("custom", core.Limit{Name: "w", Algorithm: core.FixedWindow{Quota: 10, Window: time.Hour}})
	daily := core.MustPolicy("custom", core.Limit{Name: "w", Algorithm: core.FixedWindow{Quota: 100, Window: 24 * time.Hour}})
	provider := func(_ context.Context, key string) (*core.Policy, bool, error) {
		switch key {
		case "tenant-a":
			return hourly, true, nil
		case "tenant-b":
			return daily, true, nil
		}
		return hourlyPolicy(key, 10), true, nil
	}
	o, err := core.NewOverrides(hourlyPolicy("default", 1000), provider,
		core.OverrideOptions{MaxPolicies: 2, TTL: time.Minute}, core.WithClock(clk))
	require.NoError(t, err)
	admitted := 0
	allow := func() {
		for range 10 {
			r, err := o.Allow(ctx, "tenant-a")
			if err == nil && r.Allowed {
				admitted++
			}
		}
	}
	allow()
	_, err = o.Allow(ctx, "tenant-b") // "custom" turns daily: the hourly limiter replaced
	require.NoError(t, err)
	for _, other := range []string{"x1", "x2", "x3"} { // each forgotten for the next
		_, err := o.Peek(ctx, other, 1)
		require.NoError(t, err)
		clk.Advance(61 * time.Second)
	}
	allow() // "custom" turns hourly again
	require.LessOrEqual(t, admitted, 10, "10 an hour, whatever other names come and go")
}
