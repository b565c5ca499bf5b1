package redisstore_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/faultproxy"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackRefundReplayedByClientRetry: a refund whose reply is lost after
// Redis applied it (a connection reset on the way back) must not be
// applied twice when the client retries the pipeline (go-redis's default
// MaxRetries is 3, and the store must hold whatever the client's
// options): a decision gives back at most what it took, once.
func TestAttackRefundReplayedByClientRetry(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := redistest.Start(t)
	d := faultproxy.Start(t, srv.Addr())
	// go-redis's default retries (MaxRetries 3); reads bounded by a time no
	// loaded machine reaches (its default 3 s could send a take again, and
	// a take counted twice leaves less to refund).
	client := redis.NewClient(&redis.Options{Addr: d.Addr(), ReadTimeout: 10 * time.Second})
	t.Cleanup(func() { _ = client.Close() })
	s, err := redisstore.New(client, redisstore.Options{
		Timeout: 10 * time.Second, CallerClock: true, NoFunctions: true,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	p, err := core.Single("p", core.GCRA{Rate: core.PerHour(5)})
	require.NoError(t, err)
	clk := coretest.NewClock(time.Now())
	l, err := core.NewLimiter(p, core.WithStore(s), core.WithClock(clk))
	require.NoError(t, err)

	var last core.Result
	for range 5 {
		last, err = l.Allow(ctx, "k")
		require.NoError(t, err)
		require.True(t, last.Allowed)
	}
	d.LoseNextReply()
	_, _ = l.Refund(ctx, "k", last) // its reply is lost; an error is fine, a replay is not
	require.Equal(t, int64(1), d.Lost())
	// What Redis holds now, seen by a store of its own (the first may have
	// opened its breaker on the broken connection).
	s2, err := redisstore.New(srv.Client(t), redisstore.Options{Timeout: 10 * time.Second, CallerClock: true, NoFunctions: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s2.Close() })
	l2, err := core.NewLimiter(p, core.WithStore(s2), core.WithClock(clk))
	require.NoError(t, err)
	n := 0
	for range 10 {
		r, err := l2.Allow(ctx, "k")
		require.NoError(t, err)
		if r.Allowed {
			n++
		}
	}
	assert.LessOrEqual(t, n, 1, "one refund of one unit gave back %d", n)
}
