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

// TestAttackMaxDelayRetryAfterHonest: LeakyBucket 1/s, capacity 4, asked
// under WithMaxDelay(1.5 s), costs 1, 2, 2 at one instant. The third was
// refused with RetryAfter 1 s (the bucket is full) and, retried at exactly
// +1 s, refused again (its delay would be 2 s), now with RetryAfter
// 500 ms; the second showed Remaining 1 and the third Remaining 1, yet a
// request of 1 was refused. Now the third says 1.5 s, is admitted then and
// not 1 ns before, and every Remaining is admitted.
func TestAttackMaxDelayRetryAfterHonest(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(coretest.T0)
	p := core.MustPolicy("lb", core.Limit{Name: "lb", Algorithm: core.LeakyBucket{Rate: core.PerSecond(1), Capacity: 4}})
	l, err := core.NewLimiter(p, core.WithClock(clk))
	require.NoError(t, err)
	ctx := core.WithMaxDelay(context.Background(), 1500*time.Millisecond)
	take := func(cost int64) core.Result {
		r, err := l.AllowN(ctx, "k", cost)
		require.NoError(t, err)
		return r
	}
	r := take(1)
	require.True(t, r.Allowed)
	assert.Equal(t, int64(3), r.Remaining, "a follow-up of 3 waits 1 s")
	r = take(2)
	require.True(t, r.Allowed)
	assert.Equal(t, time.Second, r.Delay)
	assert.Zero(t, r.Remaining, "a follow-up would wait 3 s")
	r = take(2)
	require.False(t, r.Allowed)
	assert.Zero(t, r.Remaining)
	require.Equal(t, 1500*time.Millisecond, r.RetryAfter)
	clk.Advance(r.RetryAfter - 1)
	r1 := take(2)
	assert.False(t, r1.Allowed, "1 ns early")
	assert.Equal(t, time.Duration(1), r1.RetryAfter)
	clk.Advance(1)
	r = take(2)
	assert.True(t, r.Allowed, "at RetryAfter")
	assert.LessOrEqual(t, r.Delay, 1500*time.Millisecond)
}
