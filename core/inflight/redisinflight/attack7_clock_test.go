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
