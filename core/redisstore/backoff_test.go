package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBackoffRefusals: Bind refuses (wrapping core.ErrInvalidConfig) a
// Backoff whose durations, defaults applied, are not whole microseconds,
// and accepts the defaults. Bind does not reach Redis.
func TestBackoffRefusals(t *testing.T) {
	t.Parallel()
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	t.Cleanup(func() { c.Close() })
	s, err := redisstore.New(c, redisstore.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	for _, tc := range []struct {
		name string
		b    core.Backoff
		ok   bool
	}{
		{"defaults", core.Backoff{Free: 5}, true},
		{"max free", core.Backoff{Free: core.MaxBackoffFree}, true},
		{"µs", core.Backoff{Free: 1, Window: time.Microsecond, Base: 3 * time.Microsecond, Max: 7 * time.Microsecond, Forgive: 7 * time.Microsecond}, true},
		{"window ns", core.Backoff{Free: 1, Window: time.Second + 1}, false},
		{"base ns", core.Backoff{Free: 1, Base: 1500}, false},
		{"max ns", core.Backoff{Free: 1, Max: time.Hour + 999}, false},
		{"forgive ns", core.Backoff{Free: 1, Forgive: 48*time.Hour + 1}, false},
		{"default max from a ns base", core.Backoff{Free: 1, Base: time.Hour + 1}, false},
		{"invalid for core", core.Backoff{Free: 0}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := core.NewPolicy("b", core.Limit{Name: "b", Algorithm: tc.b})
			if err != nil {
				require.False(t, tc.ok)
				require.ErrorIs(t, err, core.ErrInvalidConfig)
				return
			}
			_, err = s.Bind(p)
			if tc.ok {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, core.ErrInvalidConfig)
		})
	}
}

// TestBackoffScale: FailLocal's policy of a Backoff keeps its durations and
// grants its share of Free, at least 1.
func TestBackoffScale(t *testing.T) {
	t.Parallel()
	b := core.Backoff{Free: 10, Window: time.Minute, Base: time.Second, Max: time.Minute, Forgive: time.Hour}
	p := core.MustPolicy("b", core.Limit{Name: "b", Algorithm: b})
	for share, free := range map[float64]int64{1: 10, 0.5: 5, 0.25: 2, 0.01: 1} {
		sp, err := redisstore.ScalePolicy(p, share)
		require.NoError(t, err)
		want := b
		want.Free = free
		assert.Equal(t, want, sp.Limits()[0].Algorithm, "share %v", share)
	}
}

// TestBackoffRedisTime: a login lockout on Redis TIME: Free failures pass,
// the next one passes and locks for Base, the lock denies with RetryAfter
// at most Base, a refund of the locking take lifts the lock.
func TestBackoffRedisTime(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	c := srv.Client(t)
	s := newStore(t, c, redisstore.Options{})
	p := core.MustPolicy("login", core.Limit{Name: "login", Algorithm: core.Backoff{Free: 2, Window: time.Hour, Base: time.Minute, Max: time.Hour, Forgive: 2 * time.Hour}})
	l := limiterOn(t, s, p)
	ctx := context.Background()
	for i := range 2 {
		r, err := l.Allow(ctx, "alice")
		require.NoError(t, err)
		require.True(t, r.Allowed, "free failure %d", i)
		assert.Equal(t, int64(1-i), r.Remaining)
	}
	before := time.Now()
	lockTake, err := l.Allow(ctx, "alice")
	require.NoError(t, err)
	require.True(t, lockTake.Allowed, "the failure beyond Free is admitted and locks")
	r, err := l.Allow(ctx, "alice")
	elapsed := time.Since(before) // Redis TIME moved at most this much between the two decisions
	require.NoError(t, err)
	require.False(t, r.Allowed)
	assert.GreaterOrEqual(t, r.RetryAfter, time.Minute-elapsed)
	assert.LessOrEqual(t, r.RetryAfter, time.Minute)
	_, err = l.Refund(ctx, "alice", lockTake)
	require.NoError(t, err)
	r, err = l.Allow(ctx, "alice")
	require.NoError(t, err)
	assert.True(t, r.Allowed, "the refund lifted the lock")
	r, err = l.Allow(ctx, "bob")
	require.NoError(t, err)
	assert.True(t, r.Allowed)
	checkTTLs(t, c)
}
