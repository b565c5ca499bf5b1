package redisinflight_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/inflight"
	"github.com/floodgate-go/floodgate/core/inflight/redisinflight"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/stretchr/testify/require"
)

// TestAttackSlowRequestKeepsItsSlotByDefault: a concurrency limit exists
// to stop slow, expensive requests, and a client can make its own request
// slow (a slow upload, a slow read of the answer). With the renewal
// options at their zero values (Lease 30 s), a request running longer
// than its lease lost its slot silently: renewal was opt-in (AutoRenew),
// so the lease ended at t0+30 s and the next Acquire took the slot, 2
// requests in flight at a limit of 1 across the fleet. Held slots are now
// renewed unless the caller opts out (ManualRenew): the request running
// 2 min (four leases) still holds its slot and the other process is
// refused. The clock and the renewal timer are fakes: the test runs each
// renewal at its instant.
func TestAttackSlowRequestKeepsItsSlotByDefault(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	clk := coretest.NewClock(t0)
	opts := redisinflight.Options{Clock: clk} // the renewal options at their zero values
	l := newLimiter(t, srv.Client(t), 1, opts)
	other := newLimiter(t, srv.Client(t), 1, opts) // another process of the fleet
	timers := redisinflight.FakeRenewals(l)
	ctx := context.Background()

	slow, err := l.Acquire(ctx, "k")
	require.NoError(t, err)
	var timer *redisinflight.RenewTimer
	select {
	case timer = <-timers: // (scheduled by the Acquire itself)
	default:
	}
	end := t0.Add(2 * time.Minute) // the slow request's end
	for at := t0; timer != nil && !timer.Stopped; {
		if at = at.Add(timer.Period); at.After(end) {
			break
		}
		clk.Set(at)
		timer.Renew()
	}
	clk.Set(end)
	s, err := other.Acquire(ctx, "k")
	if err == nil {
		_ = s.Release(ctx)
	}
	require.ErrorIs(t, err, inflight.ErrFull, "2 requests in flight at a limit of 1: the slow one's slot was given away")
	require.Equal(t, 13, timer.Scheduled, "the first renewal, then one after each of the 12 (at 10 s, 20 s, …, 2 min): every Lease/3")
	require.NoError(t, slow.Release(ctx))
	require.Positive(t, timer.Stops(), "released: renewals stop") // (read safely: see Stops)
}

// TestManualRenewLeavesRenewalToTheCaller: with ManualRenew no renewal is
// scheduled (no timer, no script), and a slot not renewed by its caller is
// held for Lease only, as documented: then another request may take it.
func TestManualRenewLeavesRenewalToTheCaller(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	clk := coretest.NewClock(t0)
	l := newLimiter(t, srv.Client(t), 1, redisinflight.Options{Clock: clk, ManualRenew: true})
	timers := redisinflight.FakeRenewals(l)
	ctx := context.Background()
	s, err := l.Acquire(ctx, "k")
	require.NoError(t, err)
	require.Empty(t, timers, "no renewal scheduled")
	clk.Set(t0.Add(30*time.Second - time.Microsecond))
	_, err = l.Acquire(ctx, "k")
	require.ErrorIs(t, err, inflight.ErrFull, "held for the lease")
	clk.Set(t0.Add(30 * time.Second))
	o, err := l.Acquire(ctx, "k")
	require.NoError(t, err, "the lease ended: the slot is another's")
	require.NoError(t, o.Release(ctx))
	require.NoError(t, s.Release(ctx))
}
