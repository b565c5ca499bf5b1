package core

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestAttackOverrideForgetRescansNames: while MaxPolicies names are
// in use, every key whose override names a new policy makes forgetIdle
// look for a name to give way, holding o.mu, which every resolve and
// refund waits for. A name found holding state is not looked at again for
// ErrorTTL, but every call still gathered and sorted every unused name: a
// client sending keys that a new tenant's name decides (each refused key
// one call) made each of its requests cost every other request a scan of
// all the names (MaxPolicies 4096, about 1 ms each). A scan that finds no
// name to forget now records when one may first be, and the calls before
// that do nothing.
func TestAttackOverrideForgetRescansNames(t *testing.T) {
	// Not parallel: testing.AllocsPerRun refuses a parallel test.
	ctx := context.Background()
	clk := &idleClock{time.Unix(1_000_000, 0)}
	pol := func(name string) *Policy {
		return MustPolicy(name, Limit{Algorithm: FixedWindow{Quota: 1, Window: 24 * time.Hour}})
	}
	provider := func(_ context.Context, key string) (*Policy, bool, error) { return pol(key), true, nil }
	const names = 64
	o, err := NewOverrides(pol("default"), provider,
		OverrideOptions{MaxPolicies: names, TTL: time.Minute}, WithClock(clk))
	require.NoError(t, err)
	for i := range names { // tenants of a daily quota, spent, then away
		_, err := o.Allow(ctx, fmt.Sprint("t", i))
		require.NoError(t, err)
	}
	clk.t = clk.t.Add(10 * time.Minute)
	_, err = o.Allow(ctx, "newcomer") // every name looked at once, each holding state
	require.Error(t, err)

	now := o.def.now()
	o.mu.Lock()
	defer o.mu.Unlock()
	allocs := testing.AllocsPerRun(10, func() { require.False(t, o.forgetIdle(now)) })
	require.Zero(t, allocs, "each refused key gathers and sorts every name again")
}
