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

// TestAttackMaxDelayForeverHonest: WithMaxDelay(core.Never), a caller
// that waits as long as it takes, on LeakyBucket 1/s, capacity 4,
// NoDelay 3 beside a FixedWindow of 1. The bound's wait past it was
// computed as debt − NoDelay's stretch − bound, which wraps for a bound
// near math.MaxInt64 and a debt below the stretch: the first admission
// reported Remaining 0 (3 pass), and the second request, refused by the
// window, RetryAfter 292 years (the window reopens in 1 s). Now
// Remaining 3 and RetryAfter 1 s, as without the bound.
func TestAttackMaxDelayForeverHonest(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(coretest.T0)
	lb := core.LeakyBucket{Rate: core.PerSecond(1), Capacity: 4, NoDelay: 3}
	for _, p := range []*core.Policy{
		core.MustPolicy("lb", core.Limit{Name: "lb", Algorithm: lb}),
		core.MustPolicy("lbfw",
			core.Limit{Name: "lb", Algorithm: lb},
			core.Limit{Name: "fw", Algorithm: core.FixedWindow{Quota: 1, Window: time.Second}}),
	} {
		l, err := core.NewLimiter(p, core.WithClock(clk))
		require.NoError(t, err)
		ctx := core.WithMaxDelay(context.Background(), core.Never)
		r, err := l.Allow(ctx, "k")
		require.NoError(t, err)
		require.True(t, r.Allowed, p.Name())
		for _, lr := range r.Limits() {
			if lr.Name == "lb" {
				assert.Equal(t, int64(3), lr.Remaining, "%s: 3 more pass at once", p.Name())
			}
		}
		if p.Name() == "lb" {
			assert.Equal(t, int64(3), r.Remaining)
			continue
		}
		r, err = l.Allow(ctx, "k")
		require.NoError(t, err)
		require.False(t, r.Allowed)
		assert.Equal(t, "fw", r.Name)
		assert.LessOrEqual(t, r.RetryAfter, time.Second, "the window reopens in 1 s")
		for _, lr := range r.Limits() {
			assert.LessOrEqual(t, lr.RetryAfter, time.Second, lr.Name)
		}
	}
}
