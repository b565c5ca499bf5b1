package redisstore_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func limiterOn(t *testing.T, s core.Store, p *core.Policy, opts ...core.Option) *core.Limiter {
	t.Helper()
	l, err := core.NewLimiter(p, append([]core.Option{core.WithStore(s)}, opts...)...)
	require.NoError(t, err)
	return l
}

// commands returns the calls of a command so far (INFO commandstats).
func commands(t testing.TB, c redis.UniversalClient, cmd string) int64 {
	t.Helper()
	info, err := c.Info(context.Background(), "commandstats").Result()
	require.NoError(t, err)
	for _, line := range strings.Split(info, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "cmdstat_"+cmd+":calls="); ok {
			n, err := strconv.ParseInt(rest[:strings.IndexByte(rest, ',')], 10, 64)
			require.NoError(t, err)
			return n
		}
	}
	return 0
}

// scriptCalls returns the script calls so far: FCALL, EVALSHA and EVAL.
func scriptCalls(t testing.TB, c redis.UniversalClient) int64 {
	t.Helper()
	return commands(t, c, "fcall") + commands(t, c, "evalsha") + commands(t, c, "eval")
}

// TestTimeMode decides on Redis TIME: the result's instant is Redis's, keys
// get a TTL at their recovery time and vanish after it.
func TestTimeMode(t *testing.T) {
	srv := startRedis(t)
	c := srv.Client(t)
	s := newStore(t, c, redisstore.Options{Prefix: "tm:"})
	ctx := context.Background()
	l := limiterOn(t, s, core.MustPolicy("tm", core.Limit{Name: "tm", Algorithm: core.GCRA{Rate: core.PerMinute(3)}}))
	for i := range 3 {
		r, err := l.Allow(ctx, "k")
		require.NoError(t, err)
		require.True(t, r.Allowed, "take %d", i)
		assert.WithinDuration(t, time.Now(), r.At(), 5*time.Second, "Redis TIME")
	}
	r, err := l.Allow(ctx, "k")
	require.NoError(t, err)
	require.False(t, r.Allowed)
	assert.InDelta(t, float64(20*time.Second), float64(r.RetryAfter), float64(time.Second))
	_, err = l.Refund(ctx, "k", core.Result{})
	assert.ErrorIs(t, err, core.ErrNotTaken)
	checkTTLs(t, c)

	short := limiterOn(t, s, core.MustPolicy("short", core.Limit{Name: "w", Algorithm: core.FixedWindow{Limit: 1, Window: 150 * time.Millisecond, Anchored: true}}))
	r, err = short.Allow(ctx, "gone")
	require.NoError(t, err)
	require.True(t, r.Allowed)
	keys, err := c.Keys(ctx, "tm:*").Result()
	require.NoError(t, err)
	require.Len(t, keys, 2, "one key per (policy, key, limit); raw keys never reach Redis")
	for _, k := range keys {
		assert.NotContains(t, k, "gone")
		ttl, err := c.PTTL(ctx, k).Result()
		require.NoError(t, err)
		assert.Greater(t, ttl, time.Duration(0))
	}
	require.Eventually(t, func() bool {
		n, err := c.Exists(ctx, keys...).Result()
		return err == nil && n == 1 // the GCRA key lives ~1 minute
	}, 2*time.Second, 20*time.Millisecond, "the FixedWindow key vanishes after its window")
}

// TestConcurrentLimit: 2,000 simultaneous attempts at a limit of 50 with no
// refill admit exactly 50.
func TestConcurrentLimit(t *testing.T) {
	srv := startRedis(t)
	c := srv.Client(t)
	for _, alg := range []core.Algorithm{
		core.GCRA{Rate: core.Per(1, 24*time.Hour), Burst: 50},
		core.FixedWindow{Limit: 50, Window: time.Hour, Anchored: true},
		core.SlidingLog{Limit: 50, Window: time.Hour},
	} {
		s := newStore(t, c, redisstore.Options{Timeout: 10 * time.Second})
		l := limiterOn(t, s, core.MustPolicy("c", core.Limit{Name: "c", Algorithm: alg}))
		var admitted, failed atomic.Int64
		var wg sync.WaitGroup
		start := make(chan struct{})
		for range 2000 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				r, err := l.Allow(context.Background(), "hot")
				switch {
				case err != nil:
					failed.Add(1)
				case r.Allowed:
					admitted.Add(1)
				}
			}()
		}
		close(start)
		wg.Wait()
		assert.Zero(t, failed.Load(), "%T", alg)
		assert.Equal(t, int64(50), admitted.Load(), "%T", alg)
	}
}

// TestScriptFlush: a FUNCTION FLUSH or SCRIPT FLUSH between calls is
// invisible; each decision is one FCALL (or with NoFunctions one EVALSHA),
// plus, after a flush, one reload and one retry.
func TestScriptFlush(t *testing.T) {
	srv := startRedis(t)
	c := srv.Client(t)
	ctx := context.Background()
	for _, noFn := range []bool{false, true} {
		s := newStore(t, c, redisstore.Options{NoFunctions: noFn})
		l := limiterOn(t, s, core.MustPolicy("f", core.Limit{Name: "f", Algorithm: core.GCRA{Rate: core.PerSecond(10)}}))
		call, other := "fcall", "evalsha"
		if noFn {
			call, other = other, call
		}
		for i := range 3 {
			r, err := l.Allow(ctx, "k")
			require.NoError(t, err, "call %d", i)
			require.True(t, r.Allowed)
			require.NoError(t, c.FunctionFlush(ctx).Err())
			require.NoError(t, c.ScriptFlush(ctx).Err())
		}
		_, err := l.Allow(ctx, "reload") // reloads after the last flush
		require.NoError(t, err)
		calls, others := commands(t, c, call), commands(t, c, other)
		for i := range 5 {
			_, err := l.Allow(ctx, fmt.Sprint("steady", i))
			require.NoError(t, err)
		}
		assert.Equal(t, calls+5, commands(t, c, call), "one %s per decision (NoFunctions %v)", call, noFn)
		assert.Equal(t, others, commands(t, c, other), "NoFunctions %v", noFn)
	}
}

// TestNoFunctionCommand: a Redis that refuses FUNCTION (here renamed
// away, as some managed services do) gets EVALSHA, after one EVAL.
func TestNoFunctionCommand(t *testing.T) {
	srv := startRedis(t, "--rename-command", "FUNCTION", "")
	c := srv.Client(t)
	ctx := context.Background()
	s := newStore(t, c, redisstore.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	l := limiterOn(t, s, core.MustPolicy("nf", core.Limit{Name: "nf", Algorithm: core.GCRA{Rate: core.PerSecond(10)}}))
	for i := range 4 {
		r, err := l.Allow(ctx, "k")
		require.NoError(t, err, "call %d", i)
		require.True(t, r.Allowed, "call %d", i)
	}
	assert.Equal(t, int64(1), commands(t, c, "eval"))
	assert.Equal(t, int64(3), commands(t, c, "evalsha"))
}

// TestTypedErrors: a key of the wrong type is an error, never an
// admission, except in FailOpen mode.
func TestTypedErrors(t *testing.T) {
	srv := startRedis(t)
	c := srv.Client(t)
	ctx := context.Background()
	p := core.MustPolicy("wt", core.Limit{Name: "wt", Algorithm: core.GCRA{Rate: core.PerSecond(10)}})
	for _, mode := range []redisstore.FailureMode{redisstore.FailClosed, redisstore.FailOpen, redisstore.FailLocal} {
		prefix := "wt" + mode.String() + ":"
		s := newStore(t, c, redisstore.Options{Prefix: prefix, FailureMode: mode})
		l := limiterOn(t, s, p)
		_, err := l.Allow(ctx, "k")
		require.NoError(t, err)
		keys, err := c.Keys(ctx, prefix+"*").Result()
		require.NoError(t, err)
		require.Len(t, keys, 1)
		require.NoError(t, c.Del(ctx, keys[0]).Err())
		require.NoError(t, c.HSet(ctx, keys[0], "x", "1").Err())
		r, err := l.Allow(ctx, "k")
		if mode == redisstore.FailOpen {
			require.NoError(t, err)
			assert.True(t, r.Allowed)
			continue
		}
		require.Error(t, err, mode.String())
		assert.Contains(t, err.Error(), "WRONGTYPE")
		assert.False(t, r.Allowed)
		assert.False(t, s.Down(), "an error reply is not an outage")
	}
}

// TestDenyCache: a denied key is answered locally until its retry instant;
// refunds and resets forget it.
func TestDenyCache(t *testing.T) {
	srv := startRedis(t)
	c := srv.Client(t)
	ctx := context.Background()
	s := newStore(t, c, redisstore.Options{CallerClock: true, ExpirySlack: time.Hour})
	clk := newClock()
	l := limiterOn(t, s, core.MustPolicy("dc", core.Limit{Name: "dc", Algorithm: core.GCRA{Rate: core.PerMinute(1), Burst: 2}}), core.WithClock(clk))
	for range 2 {
		r, err := l.Allow(ctx, "k")
		require.NoError(t, err)
		require.True(t, r.Allowed)
	}
	r, err := l.Allow(ctx, "k")
	require.NoError(t, err)
	require.False(t, r.Allowed)
	require.Equal(t, time.Minute, r.RetryAfter)
	before := scriptCalls(t, c)
	for i := range 100 {
		clk.Advance(100 * time.Millisecond)
		r, err := l.Allow(ctx, "k")
		require.NoError(t, err)
		require.False(t, r.Allowed)
		require.Equal(t, time.Minute-time.Duration(i+1)*100*time.Millisecond, r.RetryAfter)
		require.Zero(t, r.Remaining)
	}
	assert.Equal(t, before, scriptCalls(t, c), "denials answered locally")
	r, err = l.AllowN(ctx, "k", 2)
	require.NoError(t, err)
	require.False(t, r.Allowed, "other costs go to Redis")
	require.NoError(t, l.Reset(ctx, "k"))
	r, err = l.Allow(ctx, "k")
	require.NoError(t, err)
	require.True(t, r.Allowed, "a reset forgets the cached denial")
	clk.Advance(time.Hour)
	r, err = l.Allow(ctx, "k")
	require.NoError(t, err)
	require.True(t, r.Allowed, "past the retry instant the cache is not used")
}
