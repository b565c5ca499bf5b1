package redisinflight_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/inflight"
	"github.com/floodgate-go/floodgate/core/inflight/redisinflight"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/stretchr/testify/require"
)

// TestAttackUnreleasedFloodLocksOthersKeys: a client holding 1,024 slots
// (1,024 keys of its own, limit 1) that hangs up as an outage starts
// fills the leases remembered for removal (at most 1,024). Before, every
// release after that was dropped: an innocent key whose request ended
// during the outage stayed held, by nobody, for the rest of its Lease (an
// hour here) once Redis answered again. Now a full table makes room by
// forgetting the leases of the key least recently used (released or
// Acquired): the abuser's keys, which it left, rather than the key its
// user comes back to.
func TestAttackUnreleasedFloodLocksOthersKeys(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	proxy, pc := proxied(t, srv)
	clk := coretest.NewClock(t0)
	l := newLimiter(t, pc, 1, redisinflight.Options{Clock: clk, Lease: time.Hour, FailureMode: redisstore.FailClosed})
	ctx := context.Background()
	const flood = 1024
	var abuser []*inflight.Slot
	for i := range flood {
		s, err := l.Acquire(ctx, fmt.Sprint("abuser", i))
		require.NoError(t, err)
		abuser = append(abuser, s)
	}
	victim, err := l.Acquire(ctx, "victim")
	require.NoError(t, err)

	proxy.Refuse(true)
	proxy.Drop()
	for _, s := range abuser { // the abuser hangs up
		require.ErrorIs(t, s.Release(ctx), redisstore.ErrUnavailable)
	}
	require.ErrorIs(t, victim.Release(ctx), redisstore.ErrUnavailable, "the victim's request ends")

	proxy.Refuse(false)
	clk.Advance(time.Second) // past the breaker's wait: back on Redis
	s, err := l.Acquire(ctx, "victim")
	require.NoError(t, err, "the victim's key is free: its request ended during the outage")
	require.False(t, l.Stats().Down, "decided by Redis")
	require.NoError(t, s.Release(ctx))
}
