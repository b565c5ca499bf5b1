package observetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/require"
)

// ChurnTenants drives n tenants through a core.Overrides whose provider
// gives each key a policy of its own name ("tenant-0", …, limit "hour"),
// obs observing: each tenant is decided twice (allowed, then denied), then
// gone for a day, so that Overrides forgets its name (MaxPolicies 4) for
// the next one, as when tenants come and go (sign-ups, plan changes). The
// policies in use at once never exceed 4; the names decided grow with n.
func ChurnTenants(t testing.TB, obs core.Observer, n int) {
	t.Helper()
	ChurnTenantsEach(t, obs, n, nil)
}

// ChurnTenantsEach is ChurnTenants calling each (unless nil) after each
// tenant's decisions, while its policy is in use, the Overrides' limiters
// made with opts too (core.WithStore of a watched MemoryStore, say).
func ChurnTenantsEach(t testing.TB, obs core.Observer, n int, each func(), opts ...core.Option) {
	t.Helper()
	ctx := context.Background()
	clk := coretest.NewClock(coretest.T0)
	pol := func(name string) *core.Policy {
		return core.MustPolicy(name, core.Limit{Name: "hour", Algorithm: core.FixedWindow{Quota: 1, Window: time.Hour}})
	}
	provider := func(_ context.Context, key string) (*core.Policy, bool, error) { return pol(key), true, nil }
	o, err := core.NewOverrides(pol("default"), provider, core.OverrideOptions{MaxPolicies: 4},
		append([]core.Option{core.WithClock(clk), core.WithObserver(obs)}, opts...)...)
	require.NoError(t, err)
	for i := range n {
		key := fmt.Sprint("tenant-", i)
		for _, want := range []bool{true, false} {
			r, err := o.Allow(ctx, key)
			require.NoError(t, err, key)
			require.Equal(t, want, r.Allowed, key)
		}
		if each != nil {
			each()
		}
		clk.Advance(24 * time.Hour)
	}
}
