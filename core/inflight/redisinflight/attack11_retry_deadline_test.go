package redisinflight_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/inflight"
	"github.com/floodgate-go/floodgate/core/inflight/redisinflight"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/faultproxy"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestAttackRetriedAcquireCutByDeadlineIsCancelled: on a client that
// retries, an Acquire whose script ran but whose reply was lost, and whose
// retry was then cut by the Acquire's end (its back-off, or its wait for a
// connection, outlasting Options.Timeout or its caller, who hung up; or a
// Redis that stalls past the deadline), fails with the context's own
// error, which unsent() reads as "never sent". The lease was only
// remembered for this process's next Acquire of the key, never cancelled,
// although Redis answered: every other process found the key (limit 1)
// full for the rest of the Lease (an hour here), its only request long
// gone, where a client that does not retry cancels it at once. Now a fault
// that the context ended is cancelled, as one whose last attempt may have
// been sent.
func TestAttackRetriedAcquireCutByDeadlineIsCancelled(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Client(t)
	proxy := faultproxy.Start(t, srv.Addr())
	// (MaxRetries: the default, 3; a back-off of an hour, so that the
	// retry waits until the Acquire's end whatever the machine's speed.)
	pc := redis.NewClient(&redis.Options{Addr: proxy.Addr(), ContextTimeoutEnabled: true,
		MinRetryBackoff: time.Hour, MaxRetryBackoff: time.Hour})
	t.Cleanup(func() { pc.Close() })
	clk := coretest.NewClock(t0)
	opts := redisinflight.Options{Clock: clk, Lease: time.Hour, FailureMode: redisstore.FailClosed}
	l := newLimiter(t, pc, 1, opts)
	other := newLimiter(t, c, 1, opts) // another process of the fleet
	bg := context.Background()
	warm, err := l.Acquire(bg, "warm") // (the script loaded: one EVALSHA)
	require.NoError(t, err)
	require.NoError(t, warm.Release(bg))

	proxy.LoseNextReply() // the script runs; its reply is lost with its connection
	ctx, hangUp := context.WithCancel(bg)
	gave := make(chan error, 1)
	go func() {
		_, err := l.Acquire(ctx, "k")
		gave <- err
	}()
	within.Until(t, "the script ran, its reply lost", func() bool { return proxy.Lost() == 1 })
	require.EqualValues(t, 1, leases(t, c), "the first attempt's lease")
	hangUp() // during the retry's back-off
	require.ErrorIs(t, within.Recv(t, gave, "the Acquire gives up"), context.Canceled)
	within.Until(t, "the round trip over", func() bool { return redisinflight.Outstanding(l) == 0 })
	require.False(t, l.Stats().Down, "Redis answers")

	require.EqualValues(t, 1, redisinflight.Cancelled(l), "the lease is cancelled: Redis answers")
	require.EqualValues(t, 0, leases(t, c), "no lease held by nobody")
	s, err := other.Acquire(bg, "k")
	require.NotErrorIs(t, err, inflight.ErrFull, "another process finds the key free: its only Acquire gave up")
	require.NoError(t, err)
	require.NoError(t, s.Release(bg))
}
