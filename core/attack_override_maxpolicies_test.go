package core_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackOverridePolicyBeyondMaxPoliciesNotTheDefault: a tenant held by
// its override to less than the default must not escape to the default
// (README). Override policies are told apart by name, and the provider may
// name one per tenant (a contract each); once MaxPolicies names were in
// use, a key whose override named one more was decided by the default: a
// key suspended to 1 an hour was admitted 10 of 10 at a default of 100,
// after 4 tenants of their own filled a MaxPolicies of 4 (256 by default;
// self-service sign-ups fill it). Such a key is now refused (an error
// wrapping ErrInvalidConfig, which the middleware answers 500 even when
// failing open), for ErrorTTL, and OnError told: never the default.
func TestAttackOverridePolicyBeyondMaxPoliciesNotTheDefault(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := coretest.NewClock(t0)
	def := hourlyPolicy("default", 100)
	suspended := hourlyPolicy("suspended", 1)
	var calls atomic.Int64
	provider := func(_ context.Context, key string) (*core.Policy, bool, error) {
		calls.Add(1)
		var n int
		if _, err := fmt.Sscanf(key, "tenant-%d", &n); err == nil {
			return hourlyPolicy(key, 50), true, nil
		}
		if key == "abuser" {
			return suspended, true, nil
		}
		return nil, false, nil
	}
	var told atomic.Int64
	o, err := core.NewOverrides(def, provider, core.OverrideOptions{MaxPolicies: 4,
		OnError: func(_ context.Context, err error) {
			assert.ErrorIs(t, err, core.ErrOverride)
			told.Add(1)
		}}, core.WithClock(clk))
	require.NoError(t, err)
	for i := range 4 {
		r, err := o.Allow(ctx, fmt.Sprint("tenant-", i))
		require.NoError(t, err)
		require.True(t, r.Allowed)
	}
	calls.Store(0)
	admitted := 0
	for range 10 {
		r, err := o.Allow(ctx, "abuser")
		if err == nil && r.Allowed {
			admitted++
		}
		if err != nil {
			assert.ErrorIs(t, err, core.ErrInvalidConfig, "answered 500 by the middleware, FailOpen or not")
		}
	}
	assert.Zero(t, admitted, "a key suspended to 1 an hour, decided by the default's 100")
	assert.Equal(t, int64(1), calls.Load(), "the refusal is cached for ErrorTTL: one provider call")
	assert.Equal(t, int64(1), told.Load())
	_, err = o.Peek(ctx, "abuser", 1)
	assert.ErrorIs(t, err, core.ErrInvalidConfig)
	assert.NoError(t, o.Reset(ctx, "abuser"), "Reset forgets the key under the default")

	// The provider failing afterwards keeps it refused, never the default.
	clk.Advance(2 * core.DefaultOverrideErrorTTL)
	_, err = o.Allow(ctx, "abuser")
	assert.ErrorIs(t, err, core.ErrInvalidConfig)

	// Keys without an override, and the tenants of the names in use, are
	// decided as before.
	r, err := o.Allow(ctx, "anonymous")
	require.NoError(t, err)
	assert.Equal(t, int64(100), r.Quota)
	r, err = o.Allow(ctx, "tenant-0")
	require.NoError(t, err)
	assert.Equal(t, int64(50), r.Quota)
	assert.False(t, errors.Is(err, core.ErrInvalidConfig))
}
