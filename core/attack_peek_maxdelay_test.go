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

// Peek under core.WithMaxDelay reported what a take without it decides:
// a shaping queue of 5 (one every 10 s, the first unit undelayed) holding
// 4 was peeked as admitting with a 40 s delay, though a take under a
// MaxDelay of 15 s denies it for 25 s; full, as denying for 10 s, though
// a take is admitted within 15 s only after 35 s. A caller told to retry
// at the peek's wait (the middleware's wait for an outer limit's next
// admission) was denied again. Peek now decides as the take would.
func TestAttackPeekHonoursMaxDelay(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))
	l, err := core.NewLimiter(core.MustPolicy("p", core.Limit{Name: "q",
		Algorithm: core.LeakyBucket{Rate: core.Per(1, 10*time.Second), Capacity: 5}}), core.WithClock(clk))
	require.NoError(t, err)
	ctx := core.WithMaxDelay(context.Background(), 15*time.Second)
	for i := range 5 {
		if i == 4 {
			peek, err := l.Peek(ctx, "k", 1)
			require.NoError(t, err)
			take, err := l.AllowN(ctx, "k", 1)
			require.NoError(t, err)
			assert.Equal(t, take.Allowed, peek.Allowed, "4 queued")
			assert.Equal(t, take.RetryAfter, peek.RetryAfter, "4 queued")
		}
		_, err := l.AllowN(context.Background(), "k", 1)
		require.NoError(t, err)
	}
	peek, err := l.Peek(ctx, "k", 1)
	require.NoError(t, err)
	take, err := l.AllowN(ctx, "k", 1)
	require.NoError(t, err)
	assert.False(t, peek.Allowed, "full")
	assert.Equal(t, take.RetryAfter, peek.RetryAfter, "full")
}
