package core_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackOverrideNamesChurnNotForever: MaxPolicies counted every
// override name ever given and never forgot one, so that once tenants
// come and gone (a contract each, a plan changed) had named MaxPolicies,
// every new tenant's key was refused (500) for the life of the process: 4
// tenants used once, a day later the fifth refused. A name no cached
// answer hands out any more (older than TTL and ErrorTTL) whose keys have
// all recovered (its state is as if never seen) is forgotten for a new
// one; a name whose keys still hold state is not (its tenants would start
// afresh), so that a new one is refused until one is.
func TestAttackOverrideNamesChurnNotForever(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := coretest.NewClock(t0)
	provider := func(_ context.Context, key string) (*core.Policy, bool, error) {
		return hourlyPolicy(key, 2), true, nil
	}
	o, err := core.NewOverrides(hourlyPolicy("default", 100), provider, core.OverrideOptions{MaxPolicies: 4}, core.WithClock(clk))
	require.NoError(t, err)
	take := func(key string) (core.Result, error) { return o.Allow(ctx, key) }
	for i := range 4 {
		_, err := take(fmt.Sprint("tenant-", i))
		require.NoError(t, err)
	}
	// tenant-0 spends its quota: its name holds state for the hour.
	r, err := take("tenant-0")
	require.NoError(t, err)
	require.True(t, r.Allowed)

	// Within the hour, every name's keys hold state: a new one is refused.
	clk.Advance(10 * time.Minute)
	_, err = take("tenant-4")
	require.ErrorIs(t, err, core.ErrInvalidConfig, "the names in use hold state")

	// The windows over, the names unused: a new tenant is decided by its
	// override, and an old one comes back afresh, as its state was.
	clk.Advance(24 * time.Hour)
	for i := 4; i < 10; i++ {
		r, err := take(fmt.Sprint("tenant-", i))
		require.NoError(t, err, "tenant-%d, after tenants gone a day ago", i)
		assert.Equal(t, int64(2), r.Quota)
		assert.True(t, r.Allowed)
		clk.Advance(2 * time.Hour) // each new tenant used once, then gone
	}
	r, err = take("tenant-0")
	require.NoError(t, err)
	assert.Equal(t, int64(1), r.Remaining, "its window was over: as a key never seen")
}

// A name whose keys are idle but that a cached answer still hands out
// (within TTL of its last use) is not forgotten: a key cached on its
// limiter would decide on a table the name no longer has.
func TestOverrideNameCachedNotForgotten(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := coretest.NewClock(t0)
	pol := func(name string) *core.Policy {
		return core.MustPolicy(name, core.Limit{Algorithm: core.FixedWindow{Quota: 5, Window: time.Second}})
	}
	provider := func(_ context.Context, key string) (*core.Policy, bool, error) { return pol(key), true, nil }
	o, err := core.NewOverrides(pol("default"), provider, core.OverrideOptions{MaxPolicies: 1, TTL: time.Hour}, core.WithClock(clk))
	require.NoError(t, err)
	_, err = o.Allow(ctx, "a")
	require.NoError(t, err)
	clk.Advance(time.Minute) // a's window is over, its answer cached for the hour
	_, err = o.Allow(ctx, "b")
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	clk.Advance(2 * time.Hour)
	_, err = o.Allow(ctx, "c")
	require.NoError(t, err)
}
