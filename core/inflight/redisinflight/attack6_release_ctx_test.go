package redisinflight_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/inflight/redisinflight"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/stretchr/testify/require"
)

// TestAttackReleaseWithEndedContext: a slot released with its request's
// context, which has ended (the client hung up: the natural
// defer slot.Release(r.Context())), must still give its lease back.
// Before, the ZREM was never sent (go-redis refuses an ended context
// before it writes): the key's slot stayed taken for the whole Lease (an
// hour here), so a client hanging up N times locked a key of limit N out.
// Now the release reaches Redis within Options.Timeout whatever the
// caller's context.
func TestAttackReleaseWithEndedContext(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Client(t)
	clk := coretest.NewClock(t0)
	l := newLimiter(t, c, 1, redisinflight.Options{Clock: clk, Lease: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	s, err := l.Acquire(ctx, "k")
	require.NoError(t, err)
	cancel() // the client hangs up
	require.NoError(t, s.Release(ctx))
	require.EqualValues(t, 0, leases(t, c), "the lease is removed")
	s, err = l.Acquire(context.Background(), "k")
	require.NoError(t, err, "the key's slot is free again")
	require.NoError(t, s.Release(context.Background()))
}
