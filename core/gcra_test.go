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

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func newLimiter(t testing.TB, clk core.Clock, limits ...core.Limit) *core.Limiter {
	t.Helper()
	p, err := core.NewPolicy("test", limits...)
	require.NoError(t, err)
	// Refunds are accepted however late: the tests check what the state
	// still holds.
	l, err := core.NewLimiter(p, core.WithClock(clk), core.WithRefundLedger(0, anyAge))
	require.NoError(t, err)
	return l
}

// anyAge is a refund window no test schedule reaches.
const anyAge = time.Duration(1 << 62)

// The simple cooldown article's transcript: 3 per 60 s is GCRA with a 20 s
// emission interval and a burst of 3; its "score" is ResetAfter.
func TestGCRACooldownTranscript(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(t0)
	l := newLimiter(t, clk, core.Limit{Name: "cooldown", Algorithm: core.GCRA{Rate: core.PerMinute(3)}})
	steps := []struct {
		at      time.Duration
		allowed bool
		score   time.Duration
	}{
		{0, true, 20 * time.Second},
		{0, true, 40 * time.Second},
		{0, true, 60 * time.Second},
		{1 * time.Second, false, 59 * time.Second},
		{5 * time.Second, false, 55 * time.Second},
		{10 * time.Second, false, 50 * time.Second},
		{15 * time.Second, false, 45 * time.Second},
		{21 * time.Second, true, 59 * time.Second},
	}
	for _, s := range steps {
		clk.Set(t0.Add(s.at))
		r, err := l.Allow(context.Background(), "user")
		require.NoError(t, err)
		assert.Equal(t, s.allowed, r.Allowed, "at %v", s.at)
		assert.Equal(t, s.score, r.ResetAfter, "at %v", s.at)
	}
}
