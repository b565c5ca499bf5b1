package redisinflight_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/inflight"
	"github.com/floodgate-go/floodgate/core/inflight/redisinflight"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/stretchr/testify/require"
)

// TestAttackFailLocalCountsTheOtherSlots: under FailLocal (LocalShare 1,
// one process) a key of limit 2 holds at most 2 slots across a switch to
// the local limiter and back. Before, each side ignored the slots the
// other granted: 2 slots taken in Redis and then 2 local ones during an
// outage, or 2 local ones and then 2 in Redis once it answered again, were
// 4 requests in flight. Now a local slot is granted only within the share
// less the slots this process holds in Redis, and Redis grants the limit
// less the local slots this process holds.
func TestAttackFailLocalCountsTheOtherSlots(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	proxy, pc := proxied(t, srv)
	clk := coretest.NewClock(t0)
	l := newLimiter(t, pc, 2, redisinflight.Options{Clock: clk, Lease: time.Hour, FailureMode: redisstore.FailLocal, LocalShare: 1})
	ctx := context.Background()
	down := func(on bool) {
		proxy.Refuse(on)
		if on {
			proxy.Drop()
		}
		clk.Advance(time.Second) // past the breaker's wait
	}
	// inFlight takes slots of key until one is refused.
	inFlight := func(key string) (held []*inflight.Slot) {
		for range 10 {
			s, err := l.Acquire(ctx, key)
			if err != nil {
				require.ErrorIs(t, err, inflight.ErrFull)
				return held
			}
			held = append(held, s)
		}
		return held
	}

	// Redis's slots, then the local ones.
	inRedis := inFlight("a")
	require.Len(t, inRedis, 2)
	down(true)
	require.Empty(t, inFlight("a"), "the key's 2 slots are held in Redis by this process")

	// Local slots, then Redis's.
	local := inFlight("b")
	require.Len(t, local, 2, "the local limiter grants the share")
	down(false)
	require.Empty(t, inFlight("b"), "the key's 2 slots are held locally by this process")
	require.NoError(t, local[0].Release(ctx))
	again := inFlight("b")
	require.Len(t, again, 1, "the limit less the local slot still held")
	require.False(t, l.Stats().Down, "decided by Redis")
	for _, s := range append(again, local[1]) {
		require.NoError(t, s.Release(ctx))
	}
	require.Len(t, inFlight("b"), 2, "all released: the whole limit in Redis")
	for _, s := range inRedis {
		require.NoError(t, s.Release(ctx))
	}
	require.Len(t, inFlight("a"), 2)
}
