package core

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackOverrideForgottenLimiterTakenInFlightKept: a request that took
// a limiter from the cache may take its unit after the limiter's name was
// forgotten (it looked idle then): the forgotten limiter holds the key's
// state from then on. The list of forgotten limiters kept its last
// MaxPolicies, so that MaxPolicies more names forgotten before that name
// returned dropped the limiter with the state, and the name came back on
// a new limiter, the key afresh: 2 of a quota of 1 an hour. A list that
// overflows now drops the oldest limiter that is idle, the one whose
// keys all behave as never seen, and the oldest only when none is.
func TestAttackOverrideForgottenLimiterTakenInFlightKept(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := &idleClock{time.Unix(1_000_000, 0)}
	pol := func(name string) *Policy {
		return MustPolicy(name, Limit{Algorithm: FixedWindow{Quota: 1, Window: time.Hour}})
	}
	provider := func(_ context.Context, key string) (*Policy, bool, error) { return pol(key), true, nil }
	o, err := NewOverrides(pol("default"), provider,
		OverrideOptions{MaxPolicies: 1, TTL: time.Second, ErrorTTL: time.Second}, WithClock(clk))
	require.NoError(t, err)

	// Tenant a's name is in use, then unused and idle: b's forgets it.
	_, err = o.Peek(ctx, "a", 1)
	require.NoError(t, err)
	clk.t = clk.t.Add(time.Minute)
	_, err = o.Peek(ctx, "b", 1)
	require.NoError(t, err)
	o.mu.Lock()
	require.Len(t, o.forgot, 1)
	a := o.forgot[0]
	o.mu.Unlock()
	require.Equal(t, "a", a.Policy().Name())

	// A request that took a's limiter before the forget takes its unit
	// now, on the forgotten limiter.
	r, err := a.Allow(ctx, "a")
	require.NoError(t, err)
	require.True(t, r.Allowed)

	// Another name is forgotten before a returns.
	clk.t = clk.t.Add(time.Minute)
	_, err = o.Peek(ctx, "c", 1)
	require.NoError(t, err)

	// a returns within its hour: on the limiter holding its take.
	clk.t = clk.t.Add(time.Minute)
	r, err = o.Allow(ctx, "a")
	require.NoError(t, err)
	assert.False(t, r.Allowed, "a's key starts afresh: its take was dropped with the limiter")
}
