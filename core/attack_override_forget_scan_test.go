package core_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/require"
)

// TestAttackOverrideOldNamesHoldingStateBlockNew: a new name takes the
// place of the least recently used name no longer in use, but only the
// four least recently used were looked at: four tenants of a daily quota
// who spend it once and stay away (their names unused, their keys holding
// state for the day) were those four, and every new tenant was refused
// (500) for the day although another name, unused and recovered, could
// give way. Every unused name is now looked at, oldest first.
func TestAttackOverrideOldNamesHoldingStateBlockNew(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := coretest.NewClock(t0)
	pol := func(name string) *core.Policy {
		if name[0] == 'x' { // the attackers' names: a daily quota
			return core.MustPolicy(name, core.Limit{Algorithm: core.FixedWindow{Quota: 1, Window: 24 * time.Hour}})
		}
		return core.MustPolicy(name, core.Limit{Algorithm: core.FixedWindow{Quota: 5, Window: time.Second}})
	}
	provider := func(_ context.Context, key string) (*core.Policy, bool, error) { return pol(key), true, nil }
	o, err := core.NewOverrides(pol("default"), provider,
		core.OverrideOptions{MaxPolicies: 5, TTL: time.Minute}, core.WithClock(clk))
	require.NoError(t, err)
	for i := range 4 {
		_, err := o.Allow(ctx, fmt.Sprint("x", i))
		require.NoError(t, err)
	}
	clk.Advance(time.Second)
	_, err = o.Allow(ctx, "tenant") // a tenant of its own, once
	require.NoError(t, err)
	clk.Advance(10 * time.Minute)
	_, err = o.Allow(ctx, "newcomer")
	require.NoError(t, err, "an unused, recovered name gives way")
}
