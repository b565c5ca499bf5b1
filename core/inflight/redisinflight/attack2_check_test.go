package redisinflight_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/inflight/redisinflight"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/faultproxy"
	"github.com/floodgate-go/floodgate/internal/logcount"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackCheckRunsItsScripts: a Redis whose ACL forbids the limiter's
// scripts (EVALSHA and EVAL, or a command they run) answers PING: the
// limiter had no start-up check, and every Acquire then failed with
// NOPERM, which FailOpen answered by granting a slot that holds nothing
// and FailLocal by a local slot, silently (no log line): a concurrency
// limit that limits nothing, or only this process's share. Check now runs
// an Acquire, a renewal and a Release and reports NOPERM; the first call
// failing with an error reply that is not a fault is logged, once; such a
// call fails (FailOpen grants it, as the Redis store admits), and the
// breaker stays closed (Redis answers).
func TestAttackCheckRunsItsScripts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, want string
		forbid     []any
	}{
		{"scripts", "NOPERM", []any{"-evalsha", "-eval", "-function"}},
		{"a script's command", "can't run this command", []any{"-zadd"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := redistest.Start(t)
			c := srv.Client(t)
			ctx := context.Background()
			acl := append([]any{"ACL", "SETUSER", "default", "on", "nopass", "~*", "&*", "+@all"}, tc.forbid...)
			require.NoError(t, c.Do(ctx, acl...).Err())
			for _, mode := range []redisstore.FailureMode{redisstore.FailOpen, redisstore.FailClosed, redisstore.FailLocal} {
				log, lines := logcount.Logger()
				l := newLimiter(t, c, 2, redisinflight.Options{FailureMode: mode, LocalShare: 1, Logger: log})
				assert.ErrorContains(t, l.Check(ctx), tc.want, "%v: Check", mode)
				for range 3 {
					s, err := l.Acquire(ctx, "k")
					if mode == redisstore.FailOpen {
						if assert.NoError(t, err) {
							assert.NoError(t, s.Release(ctx))
						}
						continue
					}
					assert.ErrorContains(t, err, tc.want, "%v: never a local slot for a Redis that answers", mode)
				}
				assert.Equal(t, 1, lines.Count("calls fail with an error reply"), "%v: said once", mode)
				assert.False(t, l.Stats().Down, "%v: Redis answers", mode)
			}
			// Allowed again: Check passes.
			require.NoError(t, c.Do(ctx, "ACL", "SETUSER", "default", "+@all").Err())
			assert.NoError(t, newLimiter(t, c, 2, redisinflight.Options{}).Check(ctx))
		})
	}
}

// TestAttackCheckReportsRedis: Check says what the Redis store's says:
// Redis unreachable (ErrUnavailable), a round trip not below Timeout
// (ErrTimeoutBelowRTT), and a maxmemory-policy that may evict the leases,
// volatile-* included (every lease set has a TTL; one evicted forgets the
// slots held), in Stats and one warning; noeviction is not reported.
func TestAttackCheckReportsRedis(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("unreachable", func(t *testing.T) {
		t.Parallel()
		c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
		t.Cleanup(func() { _ = c.Close() })
		assert.ErrorIs(t, newLimiter(t, c, 2, redisinflight.Options{}).Check(ctx), redisstore.ErrUnavailable)
	})
	t.Run("too slow", func(t *testing.T) {
		t.Parallel()
		srv := redistest.Start(t)
		px := faultproxy.Start(t, srv.Addr())
		px.SetLatency(15 * time.Millisecond)
		c := redis.NewClient(&redis.Options{Addr: px.Addr()})
		t.Cleanup(func() { _ = c.Close() })
		l := newLimiter(t, c, 2, redisinflight.Options{Timeout: 20 * time.Millisecond})
		assert.ErrorIs(t, l.Check(ctx), redisstore.ErrTimeoutBelowRTT, "a 30 ms round trip, a Timeout of 20 ms")
	})
	for _, policy := range []string{"volatile-lru", "allkeys-lru", "noeviction"} {
		t.Run(policy, func(t *testing.T) {
			t.Parallel()
			srv := redistest.Start(t, "--maxmemory-policy", policy)
			log, lines := logcount.Logger()
			l := newLimiter(t, srv.Client(t), 2, redisinflight.Options{Logger: log})
			require.NoError(t, l.Check(ctx))
			st := l.Stats()
			assert.Equal(t, policy, st.EvictionPolicy)
			assert.Equal(t, policy != "noeviction", st.Evicts)
			assert.Equal(t, map[bool]int{true: 1, false: 0}[st.Evicts], lines.Count("evicts keys"))
			keys, err := srv.Client(t).Keys(ctx, "*").Result()
			require.NoError(t, err)
			assert.Empty(t, keys, "Check leaves no key behind")
		})
	}
}
