package redisstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/canary"
	"github.com/floodgate-go/floodgate/internal/faultproxy"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStallDeadlineDirect is TestStallDeadline for a client that bounds its
// round trips by the context (ContextTimeoutEnabled), whose decisions made
// alone run on the caller's goroutine: during a stall each is answered by
// the store's deadline (decided locally), and the store is back on Redis
// as soon as the stall ends.
func TestStallDeadlineDirect(t *testing.T) {
	srv := redistest.Start(t)
	p := faultproxy.Start(t, srv.Addr())
	c := redis.NewClient(&redis.Options{Addr: p.Addr(), ContextTimeoutEnabled: true})
	t.Cleanup(func() { _ = c.Close() })
	const timeout = 50 * time.Millisecond
	s, logs := faultStore(t, c, redisstore.Options{Timeout: timeout, FailureMode: redisstore.FailLocal, LocalShare: 1,
		ProbeInterval: 20 * time.Millisecond, ProbeMax: 50 * time.Millisecond})
	l := faultLimiter(t, s, wide)
	ctx := context.Background()
	_, err := l.Allow(ctx, "warm")
	require.NoError(t, err)

	cn := canary.Start()
	p.Stall()
	var worst time.Duration
	for i := range 40 { // one at a time: each alone, on this goroutine
		start := time.Now()
		r, err := l.Allow(ctx, fmt.Sprint("k", i))
		worst = max(worst, time.Since(start))
		require.NoError(t, err)
		require.True(t, r.Allowed, "decided locally")
	}
	t.Logf("slowest decision during the stall: %v (timeout %v); stats %+v", worst, timeout, s.Stats())
	if cn.Kept(t, 100*time.Millisecond) {
		assert.Less(t, worst, time.Second)
	}
	assert.True(t, s.Down())

	p.Resume()
	cn = canary.Start()
	took := untilOnRedis(t, s, l, 10*time.Second)
	t.Logf("back on Redis %v after the stall", took)
	if cn.Kept(t, 100*time.Millisecond) {
		assert.Less(t, took, time.Second)
	}
	assert.Equal(t, 1, logs.count("switching"), "one line per switch")
	assert.Equal(t, 1, logs.count("back to redis"))
}
