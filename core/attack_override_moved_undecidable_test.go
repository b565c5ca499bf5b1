package core_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackOverrideMovedToUndecidableNotKeptOnOld: a tenant whose
// provider moves it from its override ("enterprise", 1000 an hour) to
// another it cannot be decided by (a name beyond MaxPolicies: "suspended",
// 1 an hour) kept the override it had, which allows it more than its new
// one as the default might: a suspended tenant was admitted 10 of 10, and
// so on every ErrorTTL after, for as long as the provider suspended it.
// The override it had is kept only for a change of that policy's own
// limits that cannot be applied (its name's); a move to another policy
// that cannot be decided is refused (ErrInvalidConfig), never decided by
// the policy it left.
func TestAttackOverrideMovedToUndecidableNotKeptOnOld(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := coretest.NewClock(t0)
	def := hourlyPolicy("default", 100)
	var mu sync.Mutex
	table := map[string]*core.Policy{"acme": hourlyPolicy("enterprise", 1000)}
	for i := range 3 {
		table[fmt.Sprint("tenant-", i)] = hourlyPolicy(fmt.Sprint("tenant-", i), 50)
	}
	provider := func(_ context.Context, key string) (*core.Policy, bool, error) {
		mu.Lock()
		defer mu.Unlock()
		p, ok := table[key]
		return p, ok, nil
	}
	o, err := core.NewOverrides(def, provider, core.OverrideOptions{MaxPolicies: 4}, core.WithClock(clk))
	require.NoError(t, err)
	for _, k := range []string{"acme", "tenant-0", "tenant-1", "tenant-2"} {
		r, err := o.Allow(ctx, k)
		require.NoError(t, err)
		require.True(t, r.Allowed)
	}
	for _, moved := range []*core.Policy{hourlyPolicy("suspended", 1)} {
		mu.Lock()
		table["acme"] = moved
		mu.Unlock()
		clk.Advance(2 * core.DefaultOverrideTTL)
		admitted := 0
		for range 10 {
			r, err := o.Allow(ctx, "acme")
			if err == nil && r.Allowed {
				admitted++
			}
			if err != nil {
				assert.ErrorIs(t, err, core.ErrInvalidConfig)
			}
		}
		assert.Zero(t, admitted, "%s: a tenant moved to 1 an hour, decided by its old 1000", moved.Name())
		mu.Lock()
		table["acme"] = hourlyPolicy("enterprise", 1000)
		mu.Unlock()
		clk.Advance(2 * core.DefaultOverrideTTL)
		r, err := o.Allow(ctx, "acme")
		require.NoError(t, err)
		require.Equal(t, int64(1000), r.Quota)
	}
}

// TestOverrideStaleDefaultCopyIsTheDefault: a provider that gives its
// standard tier the default's Policy, taken before the default's limits
// were changed with SetPolicy (or a reload), names the default with other
// limits. Such a key is decided by the default, with its limits as they
// are now, and OnError is told: refusing it would answer the whole
// standard tier 500 after a change of the default.
func TestOverrideStaleDefaultCopyIsTheDefault(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	def := hourlyPolicy("default", 5)
	var told sync.WaitGroup
	told.Add(1)
	var once sync.Once
	provider := func(context.Context, string) (*core.Policy, bool, error) { return def, true, nil }
	o, err := core.NewOverrides(def, provider, core.OverrideOptions{OnError: func(_ context.Context, err error) {
		assert.ErrorIs(t, err, core.ErrOverride)
		once.Do(told.Done)
	}}, core.WithClock(coretest.NewClock(t0)))
	require.NoError(t, err)
	require.NoError(t, o.Default().SetPolicy(hourlyPolicy("default", 8)))
	admitted := 0
	for range 10 {
		r, err := o.Allow(ctx, "standard-tenant")
		require.NoError(t, err, "the default's tier is not refused")
		if r.Allowed {
			require.Equal(t, int64(8), r.Quota, "the default's limits as they are now")
			admitted++
		}
	}
	assert.Equal(t, 8, admitted)
	told.Wait()
}
