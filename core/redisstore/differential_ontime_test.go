package redisstore_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/stretchr/testify/require"
)

// TestDifferentialOnTime replays TestDifferential's random traces (every
// algorithm, multi-limit policies, costs up to 8, peeks, refunds, resets)
// with the scripts deciding as on Redis TIME, on a clock that only moves
// forward, as TIME does: a state a decision on TIME moves back (a clock
// that went back) would decide otherwise than the memory store. A clock
// stepped back an hour shows the hook is live: the used-up key is moved
// back, denied for its minute, not the hour.
func TestDifferentialOnTime(t *testing.T) {
	t.Parallel()
	c := startRedis(t).Client(t)
	require.NoError(t, redisstore.LoadOnTime(context.Background(), c))
	s := &bindOnce{s: newStore(t, c, redisstore.Options{CallerClock: true, ExpirySlack: time.Hour})}
	pool := diffPolicies(rand.New(rand.NewPCG(3, 99)))
	rng := rand.New(rand.NewPCG(7, 99))
	for i := range 60 {
		require.NoError(t, diffTrace(rng, s, i, s.policy(pool[rng.IntN(len(pool))])))
	}

	clk := coretest.NewClock(coretest.T0.Add(time.Hour))
	l, err := core.NewLimiter(core.MustPolicy("live", core.Limit{Name: "g", Algorithm: core.GCRA{Rate: core.PerMinute(5)}}),
		core.WithStore(s.s), core.WithClock(clk))
	require.NoError(t, err)
	r, err := l.AllowN(context.Background(), "k", 5)
	require.NoError(t, err)
	require.True(t, r.Allowed)
	clk.Set(coretest.T0)
	r, err = l.Allow(context.Background(), "k")
	require.NoError(t, err)
	require.False(t, r.Allowed)
	require.LessOrEqual(t, r.RetryAfter, time.Minute, "moved back as on TIME")
}
