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
)

// TestAttackStallAnyClientOptions: a stalled Redis answers no decision
// later than Options.Timeout, whatever the go-redis client's options: one
// connection in the pool, a pool wait of a minute, reads that never time
// out, ten retries, the context's deadline honoured or not. Each decision
// is decided by the failure mode (FailLocal here) by its deadline.
func TestAttackStallAnyClientOptions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts redis.Options
	}{
		{"pool of one", redis.Options{PoolSize: 1}},
		{"pool of one, context deadlines", redis.Options{PoolSize: 1, ContextTimeoutEnabled: true}},
		{"pool wait of a minute", redis.Options{PoolSize: 1, PoolTimeout: time.Minute}},
		{"reads never time out", redis.Options{PoolSize: 2, ReadTimeout: -1, WriteTimeout: -1}},
		{"ten retries", redis.Options{MaxRetries: 10, PoolSize: 1}},
		{"context deadlines, no read timeout", redis.Options{ContextTimeoutEnabled: true, ReadTimeout: -1, PoolSize: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := redistest.Start(t)
			canary.Rounds(t, 100*time.Millisecond, func() error {
				p := faultproxy.Start(t, srv.Addr())
				o := tc.opts
				o.Addr = p.Addr()
				c := redis.NewClient(&o)
				t.Cleanup(func() { _ = c.Close() })
				const timeout = 50 * time.Millisecond
				s, _ := faultStore(t, c, redisstore.Options{Timeout: timeout, FailureMode: redisstore.FailLocal, LocalShare: 1,
					ProbeInterval: 20 * time.Millisecond, ProbeMax: 50 * time.Millisecond})
				l := faultLimiter(t, s, wide)
				ctx := context.Background()
				_, err := l.Allow(ctx, "warm")
				assert.NoError(t, err)

				p.Stall()
				worst := decideAll(t, l, 16, 5, true)
				t.Logf("slowest decision during the stall: %v (timeout %v); stats %+v", worst, timeout, s.Stats())
				p.Resume()
				took := untilOnRedis(t, s, l, 30*time.Second)
				t.Logf("back on Redis %v after the stall", took)
				if worst >= 500*time.Millisecond {
					return fmt.Errorf("a decision took %v during the stall (Timeout %v)", worst, timeout)
				}
				return nil
			})
		})
	}
}

// TestAttackBlackholedConnections: Redis fails over (or a link is cut
// without a reset): the connections open to it are black-holed, holding
// every round trip sent on them, while new connections reach a Redis that
// answers. The store must return to Redis within about a second of it
// answering, whatever the client's read timeout: a store whose pipeline
// workers all wait on black-holed connections has nothing left to send
// its trial with.
func TestAttackBlackholedConnections(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts redis.Options
	}{
		{"default options", redis.Options{}},
		{"reads never time out", redis.Options{ReadTimeout: -1, WriteTimeout: -1}},
		{"no deadlines at all", redis.Options{ReadTimeout: -2, WriteTimeout: -2}},
		{"context deadlines", redis.Options{ContextTimeoutEnabled: true}},
		{"context deadlines, no timeouts", redis.Options{ContextTimeoutEnabled: true, ReadTimeout: -1, WriteTimeout: -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := redistest.Start(t)
			canary.Rounds(t, 100*time.Millisecond, func() error {
				f := faultproxy.StartFailover(t, srv.Addr())
				o := tc.opts
				o.Addr, o.Dialer = srv.Addr(), f.Dial
				c := redis.NewClient(&o)
				t.Cleanup(func() { _ = c.Close() })
				s, _ := faultStore(t, c, redisstore.Options{Timeout: 50 * time.Millisecond, FailureMode: redisstore.FailLocal, LocalShare: 1,
					ProbeInterval: 20 * time.Millisecond, ProbeMax: 50 * time.Millisecond})
				l := faultLimiter(t, s, wide)
				ctx := context.Background()
				_, err := l.Allow(ctx, "warm")
				assert.NoError(t, err)

				f.Blackhole() // from now on, never resumed
				decideAll(t, l, 32, 5, false)
				assert.True(t, s.Down())
				f.Recover() // Redis answers again, on new connections
				took := untilOnRedis(t, s, l, 30*time.Second)
				t.Logf("back on Redis %v after it answered again", took)
				if took >= 2500*time.Millisecond {
					return fmt.Errorf("back on Redis %v after it answered again, not within max(1 s, 4 × Timeout) and a trial: "+
						"before, the client's ReadTimeout (5 s), or never", took)
				}
				return nil
			})
		})
	}
}
