package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/stretchr/testify/require"
)

// TestAttackClockBehindWarmUpSettles: on Redis TIME (LoadOnTime here, at
// the test clock's instants), a WarmUp key used up just before the clock
// went back an hour (a failover to a lagging replica, an NTP step) was
// denied for the hour: its next free instant was never moved back with
// the clock, as every other limit's instants are. It is now denied for
// the wait it was charged, never admitted beyond it, by a take and a peek
// alike (a batch settles as they do: one function, settle).
func TestAttackClockBehindWarmUpSettles(t *testing.T) {
	t.Parallel()
	c := startOnTime(t)
	ctx := context.Background()
	alg := core.WarmUp{Rate: core.PerMinute(5), WarmUp: time.Minute}
	p := core.MustPolicy("p", core.Limit{Name: "w", Algorithm: alg})
	const cold = 3 * time.Minute / 5 // a cold key's interval: ColdFactor 3
	for _, call := range []string{"take", "peek"} {
		t.Run(call, func(t *testing.T) {
			t.Parallel()
			clk := coretest.NewClock(coretest.T0.Add(time.Hour))
			l, err := core.NewLimiter(p, core.WithClock(clk), core.WithStore(newStore(t, c,
				redisstore.Options{Prefix: "fg:warm:" + call + ":", CallerClock: true, DenyCacheSize: -1})))
			require.NoError(t, err)
			r, err := l.Allow(ctx, "k")
			require.NoError(t, err)
			require.True(t, r.Allowed)
			r, err = l.Allow(ctx, "k")
			require.NoError(t, err)
			require.False(t, r.Allowed, "used up")
			clk.Set(coretest.T0) // the clock steps back an hour
			switch call {
			case "take":
				r, err = l.Allow(ctx, "k")
			case "peek":
				r, err = l.Peek(ctx, "k", 1)
			}
			require.NoError(t, err)
			require.False(t, r.Allowed, "never admitted beyond the limit")
			require.Greater(t, r.RetryAfter, time.Duration(0))
			require.LessOrEqual(t, r.RetryAfter, cold, "denied for the wait charged, not the step")
			clk.Advance(cold)
			r, err = l.Allow(ctx, "k")
			require.NoError(t, err)
			require.True(t, r.Allowed, "recovered after the wait charged")
		})
	}
}
