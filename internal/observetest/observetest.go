// Package observetest drives one scenario of decisions through a
// core.Observer, for the exporters' tests (observe/promobserve,
// observe/otelobserve): each checks what its library made of it.
package observetest

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/require"
)

// MaxKeys is the bound of the memory store Drive decides on.
const MaxKeys = 1000

// Drive decides, on a memory store of MaxKeys keys that watch is given
// first (nil: none), at a fixed instant, with obs observing:
//
//   - policy "api" (limits "burst", GCRA burst 2, and "daily", and the
//     shadow limit "candidate", GCRA burst 3): 5 requests of key
//     "secret-client" (2 allowed, 3 denied by "burst"; "candidate" would
//     have denied the last 2), 1 of "another-client" (allowed, "burst"
//     binding), and 1 of cost 0 (an error);
//   - policy "shape" (limit "q", a LeakyBucket of 1/s): 3 requests of one
//     key, allowed at once, then shaped by 1 s and by 2 s.
//
// The store then holds 2 keys of "api", 2 of its shadow limit (policy
// "api/shadow:candidate") and 1 of "shape". No key reaches obs.
func Drive(t testing.TB, obs core.Observer, watch func(*core.MemoryStore)) {
	t.Helper()
	ctx := context.Background()
	ms, err := core.NewMemoryStore(core.MemoryOptions{MaxKeys: MaxKeys, Shards: 4})
	require.NoError(t, err)
	if watch != nil {
		watch(ms)
	}
	clk := coretest.NewClock(coretest.T0)
	api, err := core.NewLimiter(core.MustPolicy("api",
		core.Limit{Name: "burst", Algorithm: core.GCRA{Rate: core.PerHour(1), Burst: 2}},
		core.Limit{Name: "daily", Algorithm: core.FixedWindow{Quota: 100, Window: 24 * time.Hour}},
		core.Limit{Name: "candidate", Algorithm: core.GCRA{Rate: core.PerHour(1), Burst: 3}, Shadow: true}),
		core.WithStore(ms), core.WithClock(clk), core.WithObserver(obs))
	require.NoError(t, err)
	shape, err := core.NewLimiter(core.MustPolicy("shape", core.Limit{Name: "q", Algorithm: core.LeakyBucket{Rate: core.PerSecond(1), Capacity: 5}}),
		core.WithStore(ms), core.WithClock(clk), core.WithObserver(obs))
	require.NoError(t, err)
	for range 5 {
		_, err = api.Allow(ctx, "secret-client")
		require.NoError(t, err)
	}
	_, err = api.Allow(ctx, "another-client")
	require.NoError(t, err)
	_, err = api.AllowN(ctx, "secret-client", 0)
	require.ErrorIs(t, err, core.ErrInvalidCost)
	for range 3 {
		_, err = shape.Allow(ctx, "k")
		require.NoError(t, err)
	}
	// The store lists its tables weakly (a table no limiter uses is
	// collected): the limiters live until the test has read the usage,
	// which a GC between Drive and the scrape emptied once in a few runs.
	t.Cleanup(func() { runtime.KeepAlive(api); runtime.KeepAlive(shape) })
}
