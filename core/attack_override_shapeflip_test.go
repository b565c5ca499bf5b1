package core_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackOverrideNameFlippingShapesKeepsState: override policies are
// told apart by name, and a change of a name's limits that SetPolicy
// refuses (another window, another algorithm) started the name's limiter
// afresh. A provider that gives one name different shapes for different
// keys (a "custom" plan of per-tenant windows), or whose answer flips
// between two contracts, thus reset every key of the name at each TTL: a
// tenant held to 10 an hour got 10 more every minute its cache entry and
// another tenant's took turns (70 in 7 minutes, where the hour allows
// 10). A shape the name had before now finds its earlier limiter, and
// the state it kept, again. And a provider failure moved a key onto the
// name's latest limiter, of another shape, where it had no count (20
// more admitted at once); it now stays on the limiter that decided it.
func TestAttackOverrideNameFlippingShapesKeepsState(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := coretest.NewClock(t0)
	def := core.MustPolicy("default", core.Limit{Name: "w", Algorithm: core.FixedWindow{Quota: 1000, Window: time.Hour}})
	hourly := core.MustPolicy("custom", core.Limit{Name: "w", Algorithm: core.FixedWindow{Quota: 10, Window: time.Hour}})
	daily := core.MustPolicy("custom", core.Limit{Name: "w", Algorithm: core.FixedWindow{Quota: 100, Window: 24 * time.Hour}})
	var failing atomic.Bool
	provider := func(_ context.Context, key string) (*core.Policy, bool, error) {
		if failing.Load() {
			return nil, false, errors.New("billing database down")
		}
		if key == "tenant-a" {
			return hourly, true, nil
		}
		return daily, true, nil
	}
	o, err := core.NewOverrides(def, provider, core.OverrideOptions{TTL: time.Minute}, core.WithClock(clk))
	require.NoError(t, err)
	admitted := 0
	for range 7 {
		for range 20 {
			r, err := o.Allow(ctx, "tenant-a")
			require.NoError(t, err)
			if r.Allowed {
				admitted++
			}
		}
		_, err := o.Allow(ctx, "tenant-b")
		require.NoError(t, err)
		clk.Advance(time.Minute)
	}
	assert.LessOrEqual(t, admitted, 10, "tenant-a's requests admitted in 7 minutes, held to 10 an hour")
	// The provider fails: tenant-a stays on the limiter that decided it,
	// not the name's latest (tenant-b's 100 a day, where it has no count).
	failing.Store(true)
	for range 20 {
		r, err := o.Allow(ctx, "tenant-a")
		require.NoError(t, err)
		if r.Allowed {
			admitted++
		}
	}
	assert.LessOrEqual(t, admitted, 10, "tenant-a's requests admitted, held to 10 an hour, the provider failing")
}
