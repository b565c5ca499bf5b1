package redisinflight_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/inflight/redisinflight"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/stretchr/testify/require"
)

// TestAttackDroppedSlotStopsRenewing: a slot its caller drops unreleased
// (an application's bug: an error path without the release) can never be
// released, yet its renewal timer, which holds the lease and not the
// slot, renewed it every Lease/3 for as long as the process ran: a slot
// that ended within a Lease (30 s) before renewal was the default was
// held for ever, across the fleet. Here the renewal due at t0+10 s ran
// after the slot was collected and the key was still full at t0+30 s
// (ErrFull, held by nobody). Now the collection of an unreleased slot
// stops its renewals: the due renewal sends nothing and the lease ends
// at t0+30 s, as with ManualRenew. (The runtime runs the cleanup after a
// collection: the test collects until it has, a bounded number of times.)
func TestAttackDroppedSlotStopsRenewing(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	clk := coretest.NewClock(t0)
	l := newLimiter(t, srv.Client(t), 1, redisinflight.Options{Clock: clk})
	timers := redisinflight.FakeRenewals(l)
	ctx := context.Background()
	_, err := l.Acquire(ctx, "k") // dropped, never released
	require.NoError(t, err)
	timer := within.Recv(t, timers, "the slot's renewal timer")
	for i := 0; i < 1000 && timer.Stops() == 0; i++ {
		runtime.GC()
		runtime.Gosched()
	}
	clk.Set(t0.Add(10 * time.Second))
	timer.Renew() // due (a real timer may fire as the cleanup stops it)
	clk.Set(t0.Add(30 * time.Second))
	s, err := l.Acquire(ctx, "k")
	require.NoError(t, err, "the dropped slot's lease ended at t0+30 s: it was renewed after its slot was collected")
	require.NoError(t, s.Release(ctx))
	require.EqualValues(t, 1, timer.Stops(), "the collection stopped the renewals")
	require.Equal(t, 1, timer.Scheduled, "the due renewal scheduled no other")
}
