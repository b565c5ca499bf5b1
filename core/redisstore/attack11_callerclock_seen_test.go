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

// TestAttackCallerClockSeenRefills: processes of a fleet on Redis TIME and
// processes on their own clock (CallerClock) share keys. A write of a
// CallerClock process recorded the caller's instant as the state's seen,
// and a caller's clock runs ahead of Redis TIME by its skew: each decision
// on TIME after it took the skew for a clock that went back and moved the
// state back by it. Alternating the two, every pair gave back the skew's
// worth of debt, without bound (each process's deny cache, left out here,
// only spaces the pairs out by a RetryAfter). seen now records only the
// instants of Redis TIME.
func TestAttackCallerClockSeenRefills(t *testing.T) {
	t.Parallel()
	c := startRedis(t).Client(t)
	ctx := context.Background()
	const period = time.Hour
	tm, err := c.Time(ctx).Result()
	require.NoError(t, err)
	clk := coretest.NewClock(tm.Add(period)) // the caller's clock, an hour ahead
	pol := core.MustPolicy("p", core.Limit{Name: "x", Algorithm: core.GCRA{Rate: core.Per(1, period), Burst: 2}})
	timeL, err := core.NewLimiter(pol, core.WithStore(newStore(t, c, redisstore.Options{Prefix: "fg:cc:", DenyCacheSize: -1})))
	require.NoError(t, err)
	callerL, err := core.NewLimiter(pol, core.WithClock(clk),
		core.WithStore(newStore(t, c, redisstore.Options{Prefix: "fg:cc:", CallerClock: true, DenyCacheSize: -1})))
	require.NoError(t, err)
	admitted := 0
	for range 10 {
		for _, l := range []*core.Limiter{timeL, callerL} {
			r, err := l.Allow(ctx, "k")
			require.NoError(t, err)
			if r.Allowed {
				admitted++
			}
		}
	}
	// Each side admits its burst once (the caller's clock an hour ahead
	// sees the key recovered), and nothing after.
	require.LessOrEqual(t, admitted, 4, "admitted beyond the limit")
}
