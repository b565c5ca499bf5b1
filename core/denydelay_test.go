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

// TestDenyDelay: a shaping delay past max turns the Result into a denial
// by the delaying limit, with RetryAfter the delay less max, and, as a
// store's denial, no Delay anywhere. With two limits delaying 10 s and 1 s
// and max 2 s, the denied Result kept Delay 1 s at the top level and on
// the limit that stayed allowed: a denial that also asked to wait (found
// by an adversarial review).
func TestDenyDelay(t *testing.T) {
	clk := coretest.NewClock(coretest.T0)
	p := core.MustPolicy("p",
		core.Limit{Name: "slow", Algorithm: core.LeakyBucket{Rate: core.Per(1, 10*time.Second), Capacity: 10}},
		core.Limit{Name: "fast", Algorithm: core.LeakyBucket{Rate: core.Per(1, time.Second), Capacity: 10}},
	)
	l, err := core.NewLimiter(p, core.WithClock(clk))
	require.NoError(t, err)
	ctx := context.Background()
	var res core.Result
	for range 2 {
		require.NoError(t, l.Take(ctx, "k", 1, &res))
	}
	require.Equal(t, 10*time.Second, res.Delay)
	assert.False(t, res.DenyDelay(10*time.Second), "a delay within max stands")
	require.True(t, res.DenyDelay(2*time.Second))
	assert.False(t, res.Allowed)
	assert.Equal(t, "slow", res.Name)
	assert.Equal(t, 8*time.Second, res.RetryAfter)
	assert.Zero(t, res.Delay)
	for _, lr := range res.Limits() {
		assert.Zero(t, lr.Delay, lr.Name)
	}
	assert.False(t, res.DenyDelay(time.Second), "a denial is left as it is")
}
