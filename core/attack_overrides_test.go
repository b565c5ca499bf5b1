package core_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackOverrideCacheFloodKeepsRestrictions: a tenant held by its
// override to less than the default must not escape to the default by a
// fault (README). A flood of distinct keys (each a default key, as the
// provider answers for unknown ones) filled the bounded override cache,
// which forgot a random entry per newcomer: the restricted tenant's among
// them. Its key was then "not yet known", and the provider failing at its
// next request (the flood's own load on the provider's database is
// enough) put it on the default. Entries of override policies are now
// kept while the cache can forget a default key's instead: a flood of
// default keys forgets only default keys.
func TestAttackOverrideCacheFloodKeepsRestrictions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := coretest.NewClock(t0)
	def := hourlyPolicy("default", 100)
	strict := hourlyPolicy("strict", 1)
	var failing atomic.Bool
	provider := func(_ context.Context, key string) (*core.Policy, bool, error) {
		if failing.Load() {
			return nil, false, errors.New("database overloaded")
		}
		if key == "restricted" || key == "also restricted" {
			return strict, true, nil
		}
		return nil, false, nil
	}
	o, err := core.NewOverrides(def, provider, core.OverrideOptions{MaxKeys: 64}, core.WithClock(clk))
	require.NoError(t, err)
	for _, k := range []string{"restricted", "also restricted"} {
		r, err := o.Allow(ctx, k)
		require.NoError(t, err)
		require.True(t, r.Allowed)
		r, err = o.Allow(ctx, k)
		require.NoError(t, err)
		require.False(t, r.Allowed, "held to 1 an hour")
	}
	for i := range 2000 { // the flood: distinct keys, none with an override
		_, err := o.Allow(ctx, fmt.Sprint("flood-", i))
		require.NoError(t, err)
	}
	failing.Store(true)
	clk.Advance(time.Second)
	for _, k := range []string{"restricted", "also restricted"} {
		r, err := o.Allow(ctx, k)
		require.NoError(t, err)
		assert.False(t, r.Allowed, "%s: still held to its override, not the default's 100", k)
		assert.Equal(t, "hour", r.Name)
		assert.Equal(t, int64(1), r.Quota, "%s: decided by its override", k)
	}
}

// TestAttackOverrideTTLForever: a TTL meant as "forever"
// (time.Duration(math.MaxInt64)) caches an override for as long as the
// clock can tell. The cache added it to the decision's instant and
// overflowed: every entry expired at once, and 200 requests of two keys
// made 200 provider calls, a failing provider's included (found by an
// adversarial review). Now the expiry saturates: one call per key.
func TestAttackOverrideTTLForever(t *testing.T) {
	ctx := context.Background()
	clk := coretest.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	def := core.MustPolicy("default", core.Limit{Name: "m", Algorithm: core.FixedWindow{Quota: 1000, Window: time.Minute}})
	pro := core.MustPolicy("pro", core.Limit{Name: "m", Algorithm: core.FixedWindow{Quota: 5000, Window: time.Minute}})
	var calls atomic.Int64
	provider := func(_ context.Context, key string) (*core.Policy, bool, error) {
		calls.Add(1)
		switch key {
		case "tenant":
			return pro, true, nil
		case "broken":
			return nil, false, errors.New("the billing service is down")
		}
		return nil, false, nil
	}
	forever := time.Duration(math.MaxInt64)
	o, err := core.NewOverrides(def, provider, core.OverrideOptions{TTL: forever, NegativeTTL: forever, ErrorTTL: forever}, core.WithClock(clk))
	require.NoError(t, err)
	for range 100 {
		for _, k := range []string{"tenant", "someone", "broken"} {
			_, _ = o.Allow(ctx, k)
		}
		clk.Advance(time.Hour)
	}
	assert.EqualValues(t, 3, calls.Load(), "one provider call per key in 300 requests over 100 hours")
}
