package redisinflight_test

import (
	"context"
	"strconv"
	"strings"
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

// evalshas is the EVALSHA commands Redis has run.
func evalshas(t *testing.T, c *redis.Client) int64 {
	t.Helper()
	s, err := c.Info(context.Background(), "commandstats").Result()
	require.NoError(t, err)
	for line := range strings.SplitSeq(s, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "cmdstat_evalsha:calls="); ok {
			n, err := strconv.ParseInt(strings.SplitN(rest, ",", 2)[0], 10, 64)
			require.NoError(t, err)
			return n
		}
	}
	return 0
}

// TestAttackLateScriptAfterRememberedCancel: an abandoned Acquire whose
// cancellation could not be sent (the breaker open) is remembered, and the
// key's next Acquire removes its lease; but its script may still be on
// its way (a partition's retransmission, a stalled link) and reach Redis
// after that Acquire. A cancellation sent leaves a tombstone that makes
// such a script take nothing; a remembered one must too. Before, the late
// script took a lease held by nobody for the rest of Options.Lease (an
// hour here): the key (limit 1) admitted nothing, its only request long
// gone.
func TestAttackLateScriptAfterRememberedCancel(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Client(t)
	stalled := faultproxy.Start(t, srv.Addr())
	healthy := faultproxy.Start(t, srv.Addr())
	sw := faultproxy.NewSwitch(stalled.Addr())
	pc := redis.NewClient(&redis.Options{Addr: stalled.Addr(), Dialer: sw.Dial, ContextTimeoutEnabled: true, MaxRetries: -1})
	t.Cleanup(func() { pc.Close() })
	h := replyHook{answered: make(chan struct{}, 1), release: make(chan struct{})}
	pc.AddHook(h)
	clk := coretest.NewClock(t0)
	l := newLimiter(t, pc, 1, redisinflight.Options{Clock: clk, Lease: time.Hour, Timeout: 2 * time.Second}) // (the held round trip gives up at it; the others are far within it)
	bg := context.Background()
	warm, err := l.Acquire(bg, "warm") // (loads the script: the held round trip is one EVALSHA)
	require.NoError(t, err)
	require.NoError(t, warm.Release(bg))

	stalled.Stall() // the script is sent, and held on its way
	_, err = l.Acquire(context.WithValue(bg, heldKey{}, true), "k")
	require.ErrorIs(t, err, redisstore.ErrUnavailable)
	within.Recv(t, h.answered, "the Acquire's round trip failed, its outcome unknown")

	sw.Set(healthy.Addr())
	healthy.Refuse(true)
	_, err = l.Acquire(bg, "other") // refused: the breaker opens
	require.ErrorIs(t, err, redisstore.ErrUnavailable)
	require.True(t, l.Stats().Down)
	close(h.release) // its cancellation is not sent: remembered
	within.Until(t, "the round trip over", func() bool { return redisinflight.Outstanding(l) == 0 })

	healthy.Refuse(false)
	clk.Advance(time.Second)     // past the breaker's wait: back on Redis
	s, err := l.Acquire(bg, "k") // removes the remembered lease (none yet)
	require.NoError(t, err)
	require.NoError(t, s.Release(bg))
	require.EqualValues(t, 0, leases(t, c))

	before := evalshas(t, c)
	stalled.Resume() // the abandoned script reaches Redis at last
	within.Until(t, "the late script ran", func() bool { return evalshas(t, c) > before })
	require.EqualValues(t, 0, leases(t, c), "the late script of a request long gone takes no lease")
	s, err = l.Acquire(bg, "k")
	require.NoError(t, err, "the key's slot is free")
	require.NoError(t, s.Release(bg))
}

// TestAttackCheckRunsTheTombstone: a cancellation, and an Acquire leaving
// the tombstone of one not sent, run SET; Check reports an ACL that
// forbids it (before, Check passed, and every cancellation failed).
func TestAttackCheckRunsTheTombstone(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	require.NoError(t, c.Do(ctx, "ACL", "SETUSER", "default", "on", "nopass", "~*", "&*", "+@all", "-set").Err())
	require.ErrorContains(t, newLimiter(t, c, 2, redisinflight.Options{}).Check(ctx), "can't run this command")
	require.NoError(t, c.Do(ctx, "ACL", "SETUSER", "default", "+@all").Err())
	require.NoError(t, newLimiter(t, c, 2, redisinflight.Options{}).Check(ctx))
}
