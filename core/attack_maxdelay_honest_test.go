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
// under WithMaxDelay(1.5 s), costs 1, 2, 2 at one instant, on a Limiter
// and as an Overrides' policy for the key. The third was refused with
// RetryAfter 1 s (the bucket is full) and, retried at exactly +1 s,
// refused again (its delay would be 2 s), now with RetryAfter 500 ms; the
// second and the third showed Remaining 1, yet a request of 1 was
// refused. Now the third says 1.5 s, is admitted then and not 1 ns
// before, and no Remaining promises what would wait past the bound.
func TestAttackMaxDelayRetryAfterHonest(t *testing.T) {
	t.Parallel()
	p := core.MustPolicy("lb", core.Limit{Name: "lb", Algorithm: core.LeakyBucket{Rate: core.PerSecond(1), Capacity: 4}})
	type allowN func(ctx context.Context, key string, cost int64) (core.Result, error)
	for name, mk := range map[string]func(*coretest.Clock) allowN{
		"limiter": func(clk *coretest.Clock) allowN {
			l, err := core.NewLimiter(p, core.WithClock(clk))
			require.NoError(t, err)
			return l.AllowN
		},
		"overrides": func(clk *coretest.Clock) allowN {
			def := core.MustPolicy("def", core.Limit{Name: "g", Algorithm: core.GCRA{Rate: core.PerSecond(100)}})
			o, err := core.NewOverrides(def, func(context.Context, string) (*core.Policy, bool, error) { return p, true, nil },
				core.OverrideOptions{}, core.WithClock(clk))
			require.NoError(t, err)
			return o.AllowN
		},
	} {
		clk := coretest.NewClock(coretest.T0)
		allow := mk(clk)
		ctx := core.WithMaxDelay(context.Background(), 1500*time.Millisecond)
		take := func(cost int64) core.Result {
			r, err := allow(ctx, "k", cost)
			require.NoError(t, err, name)
			return r
		}
		r := take(1)
		require.True(t, r.Allowed, name)
		assert.Equal(t, int64(3), r.Remaining, "%s: a follow-up of 3 waits 1 s", name)
		r = take(2)
		require.True(t, r.Allowed, name)
		assert.Equal(t, time.Second, r.Delay, name)
		assert.Zero(t, r.Remaining, "%s: a follow-up would wait 3 s", name)
		r = take(2)
		require.False(t, r.Allowed, name)
		assert.Zero(t, r.Remaining, name)
		require.Equal(t, 1500*time.Millisecond, r.RetryAfter, name)
		clk.Advance(r.RetryAfter - 1)
		r1 := take(2)
		assert.False(t, r1.Allowed, "%s: 1 ns early", name)
		assert.Equal(t, time.Duration(1), r1.RetryAfter, name)
		clk.Advance(1)
		r = take(2)
		assert.True(t, r.Allowed, "%s: at RetryAfter", name)
		assert.Equal(t, 1500*time.Millisecond, r.Delay, name)
	}
}
