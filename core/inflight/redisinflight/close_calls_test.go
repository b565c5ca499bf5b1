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

// TestAttackClosedLimiterTakesNoUnrenewedSlot: Close says calls after it
// go to the failure mode, and it ends the renewals of held slots. Through
// the application's client (a redis.Client, which Close leaves open) an
// Acquire after Close still took a lease in Redis, never renewed: a
// request served by the closed limiter (a straggler of a reload or a
// shutdown) that ran past its Lease lost its slot to the limiter that
// replaced it on the same Redis, 2 in flight at a limit of 1. Acquires
// and waits after Close are now decided by the failure mode without
// Redis; the releases of the slots held still reach Redis.
func TestAttackClosedLimiterTakesNoUnrenewedSlot(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Client(t)
	clk := coretest.NewClock(t0)
	opts := redisinflight.Options{Clock: clk, Lease: time.Minute, FailureMode: redisstore.FailClosed}
	old := newLimiter(t, c, 1, opts)
	ctx := context.Background()
	held, err := old.Acquire(ctx, "k") // held as the limiter closes
	require.NoError(t, err)
	require.NoError(t, old.Close())
	require.NoError(t, held.Release(ctx), "a release after Close reaches Redis")
	require.Zero(t, leases(t, c))

	late, err := old.Acquire(ctx, "k")
	if err == nil {
		defer late.Release(ctx)
	}
	require.ErrorIs(t, err, redisstore.ErrUnavailable, "decided by FailClosed, not by Redis")
	_, err = old.Wait(ctx, "k")
	require.ErrorIs(t, err, redisstore.ErrUnavailable)
	require.Zero(t, leases(t, c), "no lease taken after Close")

	clk.Advance(2 * time.Minute) // past a lease taken then, never renewed
	l := newLimiter(t, c, 1, opts)
	s, err := l.Acquire(ctx, "k")
	require.NoError(t, err, "the new limiter's slot")
	_, err = l.Acquire(ctx, "k")
	require.ErrorIs(t, err, inflight.ErrFull, "1 in flight at a limit of 1")
	require.NoError(t, s.Release(ctx))
}
