package redisinflight_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/inflight"
	"github.com/floodgate-go/floodgate/core/inflight/redisinflight"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/stretchr/testify/require"
)

// TestAttackStaleRenewalShortensLease: with Options.Clock, a renewal
// carries the instant its goroutine read; one that read the clock before
// a later renewal but reached Redis after it (stalled between reading and
// sending, or on a slower connection) set the lease's end back to its own
// reading plus a Lease. Here (limit 1, Lease 1 h) the slot renewed at
// 0:50 until 1:50 was cut back to 1:20 by a renewal read at 0:20, and at
// 1:30 a second Acquire was granted: two slots of a limit of one, while
// the holder, told its renewals succeeded, went on. Now a renewal never
// moves a lease's end back. (The stale reading is made explicit by
// setting the clock back for it.)
func TestAttackStaleRenewalShortensLease(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	clk := coretest.NewClock(t0)
	l := newLimiter(t, srv.Client(t), 1, redisinflight.Options{Lease: time.Hour, Clock: clk})
	ctx := context.Background()
	s, err := l.Acquire(ctx, "k")
	require.NoError(t, err)
	clk.Set(t0.Add(50 * time.Minute))
	require.NoError(t, s.Renew(ctx), "renewed until 1:50")
	clk.Set(t0.Add(20 * time.Minute)) // the stalled renewal's reading
	require.NoError(t, s.Renew(ctx), "the stalled renewal reaches Redis: the lease is live")
	clk.Set(t0.Add(time.Hour + 30*time.Minute))
	_, err = l.Acquire(ctx, "k")
	require.ErrorIs(t, err, inflight.ErrFull, "the lease renewed until 1:50 still holds the only slot at 1:30")
	clk.Set(t0.Add(time.Hour + 50*time.Minute))
	o, err := l.Acquire(ctx, "k")
	require.NoError(t, err, "and ends at 1:50")
	require.NoError(t, o.Release(ctx))
}

// stallClock is a clock that moves on by stall once read for the first
// time: a goroutine stalled right after that reading.
type stallClock struct {
	*coretest.Clock
	stall time.Duration
	once  sync.Once
}

func (c *stallClock) Now() time.Time {
	t := c.Clock.Now()
	c.once.Do(func() { c.Clock.Advance(c.stall) })
	return t
}

// TestAttackAcquireStallLengthensLocalLease: with Options.Clock, an
// Acquire read the clock for its script (the lease ends a Lease after that
// reading) and then again for the lease's end as this process counts it:
// a goroutine stalled between the two readings counted the lease to end
// later than Redis ends it, by the stall. Here (Lease 1 h, Timeout 1 s, a
// stall of 59:59), the lease had 1 s left in Redis when its renewal
// failed, too little for a renewal to reach Redis before the end: the renewal
// must report the lease as lost. It counted an hour left and scheduled its
// next try half an hour on, the holder going on with a slot Redis gave
// back a second later. Now the Acquire reads the clock once.
func TestAttackAcquireStallLengthensLocalLease(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Client(t)
	clk := &stallClock{Clock: coretest.NewClock(t0), stall: time.Hour - time.Second}
	errs := make(chan error, 16)
	l := newLimiter(t, c, 1, redisinflight.Options{Lease: time.Hour, Timeout: time.Second, Clock: clk,
		OnError: func(err error) { errs <- err }})
	timers := redisinflight.FakeRenewals(l)
	_, err := l.Acquire(context.Background(), "k")
	require.NoError(t, err)
	r := <-timers
	require.NoError(t, c.Close()) // Redis unreachable: the renewal fails
	r.Renew()
	require.Equal(t, 1, r.Scheduled, "no renewal scheduled: the lease ends in 1 s, before a renewal could reach Redis")
	lost := false
	for len(errs) > 0 {
		lost = lost || errors.Is(<-errs, redisinflight.ErrLeaseLost)
	}
	require.True(t, lost, "the lease is reported lost")
}

// TestStaleRenewalRevivesNoSlotGivenAway: with Options.Clock, a renewal
// read before its lease's end that reaches Redis after it extends the
// lease when no Acquire of the key ran in between (Redis has seen no
// instant past the end: the slot was nobody else's), and fails with
// ErrLeaseLost once one did, since every Acquire drops the ended leases
// before counting: a stale renewal never revives a lease whose slot was
// given to another. Here (limit 1, Lease 1 h) an Acquire at 1:10 takes
// the slot, and then the renewal read at 0:50 reaches Redis.
func TestStaleRenewalRevivesNoSlotGivenAway(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Client(t)
	clk := coretest.NewClock(t0)
	l := newLimiter(t, c, 1, redisinflight.Options{Lease: time.Hour, Clock: clk})
	ctx := context.Background()

	s, err := l.Acquire(ctx, "a")
	require.NoError(t, err)
	clk.Set(t0.Add(time.Hour + 10*time.Minute))
	o, err := l.Acquire(ctx, "a")
	require.NoError(t, err, "the lease ended at 1:00")
	clk.Set(t0.Add(50 * time.Minute)) // the stale renewal's reading
	require.ErrorIs(t, s.Renew(ctx), redisinflight.ErrLeaseLost)
	clk.Set(t0.Add(time.Hour + 10*time.Minute))
	_, err = l.Acquire(ctx, "a")
	require.ErrorIs(t, err, inflight.ErrFull, "one slot, the other's")
	require.NoError(t, o.Release(ctx))
}
