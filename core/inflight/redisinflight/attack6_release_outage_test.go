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

// TestAttackReleaseDuringOutageFreesOnReturn: the slots of requests that
// ended while Redis was unreachable must come back once Redis answers
// again, not when their leases end. Before, each release failed and its
// lease stayed in Redis for the rest of Options.Lease (an hour here), held
// by nobody: back on Redis, the key (limit 2, both its slots released
// during the outage) admitted nothing for the hour, in every mode (here
// FailLocal and FailClosed). Now a release that did not reach Redis is
// remembered, and this process's next Acquire of the key removes its
// lease in the same script, before counting.
func TestAttackReleaseDuringOutageFreesOnReturn(t *testing.T) {
	t.Parallel()
	for _, mode := range []redisstore.FailureMode{redisstore.FailClosed, redisstore.FailLocal} {
		t.Run(mode.String(), func(t *testing.T) {
			t.Parallel()
			srv := redistest.Start(t)
			c := srv.Client(t)
			proxy, pc := proxied(t, srv)
			clk := coretest.NewClock(t0)
			l := newLimiter(t, pc, 2, redisinflight.Options{Clock: clk, Lease: time.Hour, FailureMode: mode, LocalShare: 1})
			ctx := context.Background()
			var held []*inflight.Slot
			for range 2 {
				s, err := l.Acquire(ctx, "k")
				require.NoError(t, err)
				held = append(held, s)
			}
			proxy.Refuse(true)
			proxy.Drop()
			for _, s := range held {
				require.ErrorIs(t, s.Release(ctx), redisstore.ErrUnavailable, "Redis is unreachable")
			}
			require.EqualValues(t, 2, leases(t, c), "the leases are still in Redis")

			proxy.Refuse(false)
			clk.Advance(time.Second) // past the breaker's wait: back on Redis
			var again []*inflight.Slot
			for range 3 {
				s, err := l.Acquire(ctx, "k")
				if err != nil {
					require.ErrorIs(t, err, inflight.ErrFull)
					continue
				}
				again = append(again, s)
			}
			require.False(t, l.Stats().Down, "decided by Redis")
			require.Len(t, again, 2, "both slots free: their requests ended during the outage")
			require.EqualValues(t, 2, leases(t, c))
			for _, s := range again {
				require.NoError(t, s.Release(ctx))
			}
			require.EqualValues(t, 0, leases(t, c))
		})
	}
}
