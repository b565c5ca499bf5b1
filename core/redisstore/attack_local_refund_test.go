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

// TestAttackRefundIntoLocalLimiter: a take decided by Redis and refunded
// while Redis is down (a request in flight when the store switched to
// FailLocal) must not give units back to the local limiter, which never
// took them: it let the key past its local share.
func TestAttackRefundIntoLocalLimiter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := redistest.Start(t)
	// Redis goes away behind a proxy that then refuses connections: a
	// killed server's port could be taken by another test's server.
	px := faultproxy.Start(t, srv.Addr())
	client := redis.NewClient(&redis.Options{Addr: px.Addr(), ContextTimeoutEnabled: true, MaxRetries: -1,
		DialTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second})
	t.Cleanup(func() { _ = client.Close() })
	s, err := redisstore.New(client, redisstore.Options{
		Timeout: 10 * time.Second, CallerClock: true, FailureMode: redisstore.FailLocal, LocalShare: 0.5,
		ProbeInterval: time.Hour, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	p, err := core.Single("p", core.FixedWindow{Quota: 10, Window: time.Hour})
	require.NoError(t, err)
	clk := coretest.NewClock(time.Now())
	l, err := core.NewLimiter(p, core.WithStore(s), core.WithClock(clk))
	require.NoError(t, err)

	var onRedis []core.Result
	for range 4 {
		r, err := l.Allow(ctx, "k")
		require.NoError(t, err)
		require.True(t, r.Allowed)
		onRedis = append(onRedis, r)
	}
	require.False(t, s.Down())
	px.Refuse(true)
	px.Drop()
	clk.Advance(time.Second) // the outage comes later
	local := 0
	var onLocal core.Result
	for range 10 {
		r, err := l.Allow(ctx, "k")
		require.NoError(t, err)
		if r.Allowed {
			local++
			onLocal = r
		}
	}
	require.True(t, s.Down())
	require.Equal(t, 1, local, "the local share of 10, less the 4 admitted in Redis")
	// The local limiter's own results are not refundable (their policy
	// is the scaled one): nothing given back either.
	_, err = l.Refund(ctx, "k", onLocal)
	require.ErrorIs(t, err, core.ErrNotTaken)
	for _, r := range onRedis {
		_, _ = l.Refund(ctx, "k", r)
	}
	r, err := l.Allow(ctx, "k")
	require.NoError(t, err)
	assert.False(t, r.Allowed, "refunds of Redis's takes were given to the local limiter")
}
