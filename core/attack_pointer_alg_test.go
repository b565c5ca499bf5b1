package core_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An algorithm given by pointer (&core.SlidingWindow{…}: its methods have
// value receivers, so a pointer is an Algorithm too) is decided and
// changed as its value: SetPolicy refuses a change of the parameters its
// state is read in, and the policy does not change when the caller
// modifies the value pointed to afterwards.
func TestAttackPointerAlgorithmIsItsValue(t *testing.T) {
	ctx := context.Background()
	t0 := time.Unix(1_700_000_000, 0).Truncate(time.Hour)
	clk := coretest.NewClock(t0)
	hourly := &core.SlidingWindow{Quota: 100, Window: time.Hour}
	p, err := core.NewPolicy("p", core.Limit{Name: "q", Algorithm: hourly})
	require.NoError(t, err)
	l, err := core.NewLimiter(p, core.WithClock(clk))
	require.NoError(t, err)

	clk.Set(t0.Add(30 * time.Minute))
	r, err := l.AllowN(ctx, "k", 100)
	require.NoError(t, err)
	require.True(t, r.Allowed)

	// The window may not change (its state is read in it): refused for a
	// pointer as for a value.
	perMinute, err := core.NewPolicy("p", core.Limit{Name: "q", Algorithm: &core.SlidingWindow{Quota: 100, Window: time.Minute}})
	require.NoError(t, err)
	assert.ErrorIs(t, l.SetPolicy(perMinute), core.ErrPolicyChange)
	clk.Set(t0.Add(30*time.Minute + time.Second))
	admitted := int64(100)
	r, err = l.AllowN(ctx, "k", 100)
	require.NoError(t, err)
	if r.Allowed {
		admitted += 100
	}
	assert.Equal(t, int64(100), admitted, "units admitted within one second, under 100/hour (or 100/min)")

	// The policy is immutable: the caller's value changing is not the
	// policy changing.
	hourly.Window = time.Nanosecond
	require.Equal(t, core.SlidingWindow{Quota: 100, Window: time.Hour}, p.Limits()[0].Algorithm)
	r, err = l.AllowN(ctx, "k", 1)
	require.NoError(t, err)
	assert.False(t, r.Allowed)
}
