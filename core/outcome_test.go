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

// ResultOf rebuilds exactly the Result the in-memory store returns from the
// same per-limit outcomes.
func TestResultOfMatchesMemory(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(t0)
	p := core.MustPolicy("two",
		core.Limit{Name: "burst", Algorithm: core.GCRA{Rate: core.PerSecond(1), Burst: 2}},
		core.Limit{Name: "daily", Algorithm: core.FixedWindow{Limit: 5, Window: 24 * time.Hour}})
	l, err := core.NewLimiter(p, core.WithClock(clk))
	require.NoError(t, err)
	for i := 0; i < 4; i++ {
		want, err := l.Allow(context.Background(), "k")
		require.NoError(t, err)
		var outs []core.Outcome
		for _, lr := range want.Limits() {
			outs = append(outs, core.Outcome{Allowed: lr.Allowed, Remaining: lr.Remaining,
				ResetAfter: lr.ResetAfter, RetryAfter: lr.RetryAfter, Delay: lr.Delay})
		}
		got, err := core.ResultOf(p, core.Request{Op: core.OpTake, Key: "k", Cost: 1, Now: t0.UnixNano()}, want.Taken(), outs)
		require.NoError(t, err)
		assert.Equal(t, core.Anonymous(want), got)
	}
	_, err = core.ResultOf(p, core.Request{}, false, nil)
	assert.Error(t, err)
}
