package redisinflight_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/inflight/redisinflight"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/faultproxy"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestAttackRetriedAcquireLeavesNoLease: a client that retries (go-redis's
// default MaxRetries of 3) sends an Acquire's script again when its
// connection breaks; the error the limiter sees is the last attempt's. The
// script ran on the first attempt, its reply was lost with the connection,
// and the retries could not connect (Redis restarting): the last error, a
// refused dial, said "never sent", and the lease the first attempt took
// was neither cancelled nor remembered. The key (limit 1) admitted nothing
// for the rest of its Lease (an hour here) once Redis answered again, its
// only request long gone. Now, on a client that may send a command again,
// any fault may have left a lease: it is cancelled, or remembered for the
// key's next Acquire.
func TestAttackRetriedAcquireLeavesNoLease(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	proxy := faultproxy.Start(t, srv.Addr())
	sw := faultproxy.NewSwitch(proxy.Addr())
	c := redis.NewClient(&redis.Options{Addr: proxy.Addr(), Dialer: sw.Dial, ContextTimeoutEnabled: true,
		MinRetryBackoff: time.Millisecond, MaxRetryBackoff: time.Millisecond}) // (MaxRetries: the default, 3)
	t.Cleanup(func() { c.Close() })
	clk := coretest.NewClock(t0)
	l := newLimiter(t, c, 1, redisinflight.Options{Clock: clk, Lease: time.Hour, FailureMode: redisstore.FailClosed})
	ctx := context.Background()
	warm, err := l.Acquire(ctx, "warm") // (the script loaded, a connection in the pool)
	require.NoError(t, err)
	require.NoError(t, warm.Release(ctx))

	sw.Set(fmt.Sprintf("127.0.0.1:%d", redistest.FreePort(t))) // new connections refused
	proxy.LoseNextReply()                                      // the script runs; its reply is lost
	_, err = l.Acquire(ctx, "k")
	require.ErrorIs(t, err, redisstore.ErrUnavailable)
	require.EqualValues(t, 1, proxy.Lost(), "the script ran, its reply lost")
	require.EqualValues(t, 1, leases(t, srv.Client(t)), "the first attempt's lease")

	within.Until(t, "the round trip over", func() bool { return redisinflight.Outstanding(l) == 0 })
	sw.Set(proxy.Addr())
	clk.Advance(time.Second) // past the breaker's wait: back on Redis
	s, err := l.Acquire(ctx, "k")
	require.NoError(t, err, "the key is free: its only Acquire failed")
	require.False(t, l.Stats().Down)
	require.NoError(t, s.Release(ctx))
}
