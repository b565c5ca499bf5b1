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

// TestAttackShadowShaperBeyondMaxDelay: a shadow limit reports what the
// limit would decide if enforced, so that it can be tried before it is.
// Under WithMaxDelay (the middleware's MaxDelay) a shaping shadow limit
// reported admissions delayed past the bound, which enforced it would
// deny: 0 of 6 would-be denials reported, and its queue kept the cost an
// enforced limit gives back, so that its later reports drifted. Promoted
// on that report, the limit answered 429s the dry run never showed. Each
// shadow limit now reports, under the bound, as the limit alone decides.
func TestAttackShadowShaperBeyondMaxDelay(t *testing.T) {
	t.Parallel()
	bucket := core.Limit{Name: "queue", Algorithm: core.LeakyBucket{Rate: core.PerSecond(2), Capacity: 10}}
	shadow := bucket
	shadow.Shadow = true
	clk := coretest.NewClock(coretest.T0)
	with, err := core.NewLimiter(core.MustPolicy("p", core.Limit{Name: "hour", Algorithm: core.FixedWindow{Quota: 1000, Window: time.Hour}}, shadow), core.WithClock(clk))
	require.NoError(t, err)
	alone, err := core.NewLimiter(core.MustPolicy("s", bucket), core.WithClock(clk))
	require.NoError(t, err)
	ctx := core.WithMaxDelay(context.Background(), time.Second)
	denied := 0
	for step := range 16 {
		if step%4 == 3 {
			clk.Advance(700 * time.Millisecond)
		}
		r, err := with.Allow(ctx, "k")
		require.NoError(t, err)
		a, err := alone.Allow(ctx, "k")
		require.NoError(t, err)
		want := a.Limits()[0]
		want.Name = "queue"
		sh := r.ShadowLimits()
		require.Len(t, sh, 1)
		assert.Equal(t, want, sh[0], "step %d", step)
		assert.Equal(t, !a.Allowed, r.ShadowDenied(), "step %d", step)
		if !a.Allowed {
			denied++
		}
	}
	assert.Positive(t, denied)
}
