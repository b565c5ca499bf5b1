package redisstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackFailLocalMaxDelayServesTheRate: a shaping limit (LeakyBucket
// 1/s, capacity 10) on a key its clients share, asked under
// core.WithMaxDelay(1.5 s) (the middleware's MaxDelay): a burst of 10, then
// two requests a second for 30 s. The in-memory store serves 32: the
// burst's first 2, then the rate; each admission delayed past the bound is
// given back and denied. During a Redis outage under FailLocal, whose
// local takes cannot be given back, every such denial stayed charged to
// the key: the queue never came back under the bound, and the key served
// 2 in 40 s (every client of it locked out while any asked more than the
// rate), though Result.Taken said nothing was held. Now the local limiter
// takes nothing for an admission delayed past the bound: 32, as in memory.
func TestAttackFailLocalMaxDelayServesTheRate(t *testing.T) {
	t.Parallel()
	p := core.MustPolicy("lb", core.Limit{Name: "lb", Algorithm: core.LeakyBucket{Rate: core.PerSecond(1), Capacity: 10}})
	run := func(st core.Store) (served int) {
		clk := coretest.NewClock(time.Unix(1_700_000_000, 0))
		l, err := core.NewLimiter(p, core.WithStore(st), core.WithClock(clk))
		require.NoError(t, err)
		ctx := core.WithMaxDelay(context.Background(), 1500*time.Millisecond)
		take := func() {
			r, err := l.Allow(ctx, "shared")
			require.NoError(t, err)
			assert.False(t, r.Taken() && !r.Allowed, "a denial holds nothing")
			if r.Allowed {
				served++
			}
		}
		for range 10 {
			take()
		}
		for range 30 {
			clk.Advance(time.Second)
			take()
			take()
		}
		return served
	}
	ms, err := core.NewMemoryStore(core.MemoryOptions{})
	require.NoError(t, err)
	mem := run(ms)
	require.Equal(t, 32, mem)

	s, _ := faultStore(t, defaultClient(t, deadAddr), redisstore.Options{FailureMode: redisstore.FailLocal, LocalShare: 1, Timeout: noDeadline})
	down := faultLimiter(t, s, wide)
	for i := 0; i < 100 && !s.Down(); i++ {
		_, _ = down.Allow(context.Background(), fmt.Sprint("down", i))
	}
	require.True(t, s.Down())
	assert.Equal(t, mem, run(s), "served during the outage")
}
