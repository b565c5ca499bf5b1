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
	"github.com/floodgate-go/floodgate/internal/within"
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
	return infoInt(t, c, "commandstats", "cmdstat_"+cmd+":calls=")
}

// infoInt returns the integer that follows prefix, up to a comma or the
// line's end, on the line of section of c's INFO that starts with it; 0
// when no line does.
func infoInt(t testing.TB, c redis.UniversalClient, section, prefix string) int64 {
	t.Helper()
	info, err := c.Info(context.Background(), section).Result()
	require.NoError(t, err)
	for line := range strings.Lines(info) {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), prefix); ok {
			v, _, _ := strings.Cut(rest, ",")
			n, err := strconv.ParseInt(v, 10, 64)
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
// get a TTL at their recovery time and vanish after it. Redis and the test
// read one host's clock, so each instant lies between the test's readings
// around the call; the limits are slow enough (3 per hour) that no stall
// of this test can refill them.
func TestTimeMode(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	c := srv.Client(t)
	s := newStore(t, c, redisstore.Options{Prefix: "tm:"})
	ctx := context.Background()
	l := limiterOn(t, s, core.MustPolicy("tm", core.Limit{Name: "tm", Algorithm: core.GCRA{Rate: core.PerHour(3)}}))
	first := time.Now().Truncate(time.Microsecond)
	for i := range 3 {
		before := time.Now().Truncate(time.Microsecond)
		r, err := l.Allow(ctx, "k")
		after := time.Now()
		require.NoError(t, err)
		require.True(t, r.Allowed, "take %d", i)
		assert.False(t, r.At().Before(before), "Redis TIME %v before the call (%v)", r.At(), before)
		assert.False(t, r.At().After(after), "Redis TIME %v after the call (%v)", r.At(), after)
	}
	r, err := l.Allow(ctx, "k")
	elapsed := time.Since(first)
	require.NoError(t, err)
	require.False(t, r.Allowed)
	assert.LessOrEqual(t, r.RetryAfter, 20*time.Minute)
	assert.GreaterOrEqual(t, r.RetryAfter, 20*time.Minute-elapsed, "RetryAfter counts from the first take, at most %v ago", elapsed)
	_, err = l.Refund(ctx, "k", core.Result{})
	assert.ErrorIs(t, err, core.ErrNotTaken)
	checkTTLs(t, c)

	gcraKeys, err := c.Keys(ctx, "tm:*").Result()
	require.NoError(t, err)
	require.Len(t, gcraKeys, 1, "one key per (policy, key, limit)")

	// A key vanishes at its window's end. It may be gone already when
	// looked at, which is right only once the window has passed.
	const window = 150 * time.Millisecond
	short := limiterOn(t, s, core.MustPolicy("short", core.Limit{Name: "w", Algorithm: core.FixedWindow{Quota: 1, Window: window, Anchored: true}}))
	r, err = short.Allow(ctx, "gone")
	after := time.Now()
	require.NoError(t, err)
	require.True(t, r.Allowed)
	expired := func() bool { return !time.Now().Before(r.At().Add(window)) }
	keys, err := c.Keys(ctx, "tm:*").Result()
	require.NoError(t, err)
	var shortKey string
	for _, k := range keys {
		assert.NotContains(t, k, "gone", "raw keys never reach Redis")
		if k != gcraKeys[0] {
			require.Empty(t, shortKey, "one key per (policy, key, limit): %v", keys)
			shortKey = k
		}
	}
	if shortKey == "" {
		require.True(t, expired(), "the FixedWindow key vanished before its window's end")
	} else {
		exp, err := c.PExpireTime(ctx, shortKey).Result()
		require.NoError(t, err)
		if exp == -2 {
			require.True(t, expired(), "the FixedWindow key vanished before its window's end")
		} else {
			at := time.UnixMilli(exp.Milliseconds())
			assert.False(t, at.Before(r.At().Add(window).Truncate(time.Millisecond)), "expires at %v, its window ends at %v", at, r.At().Add(window))
			assert.False(t, at.After(after.Add(window)), "expires at %v, after its window (no ExpirySlack)", at)
		}
		// Redis expires it after at most 150 ms; the bound only stops a
		// broken Redis from hanging the test.
		deadline := time.Now().Add(30 * time.Second)
		for {
			n, err := c.Exists(ctx, shortKey).Result()
			require.NoError(t, err)
			if n == 0 {
				break
			}
			require.False(t, time.Now().After(deadline), "the FixedWindow key did not vanish after its window")
			time.Sleep(10 * time.Millisecond)
		}
	}
	n, err := c.Exists(ctx, gcraKeys[0]).Result()
	require.NoError(t, err)
	require.Equal(t, int64(1), n, "the GCRA key lives ~1 hour")
}

// TestConcurrentLimit: 2,000 simultaneous attempts at a limit of 50 with no
// refill admit exactly 50.
func TestConcurrentLimit(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	c := srv.Client(t)
	for _, alg := range []core.Algorithm{
		core.GCRA{Rate: core.Per(1, 24*time.Hour), Burst: 50},
		core.FixedWindow{Quota: 50, Window: time.Hour, Anchored: true},
		core.SlidingLog{Quota: 50, Window: time.Hour},
	} {
		s := newStore(t, c, redisstore.Options{}) // newStore's bound: 2,000 queued decisions never fail by time
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
		within.Wait(t, &wg, "the test's goroutines")
		assert.Zero(t, failed.Load(), "%T", alg)
		assert.Equal(t, int64(50), admitted.Load(), "%T", alg)
	}
}

// TestScriptFlush: a FUNCTION FLUSH or SCRIPT FLUSH between calls is
// invisible; each decision is one FCALL (or with NoFunctions one EVALSHA),
// plus, after a flush, one reload and one retry.
func TestScriptFlush(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
	srv := startRedis(t)
	c := srv.Client(t)
	ctx := context.Background()
	// Slow enough that the key outlives any stall of the test (at 10/s it
	// expired after 100 ms, before KEYS could list it).
	p := core.MustPolicy("wt", core.Limit{Name: "wt", Algorithm: core.GCRA{Rate: core.PerHour(10)}})
	for _, mode := range []redisstore.FailureMode{redisstore.FailClosed, redisstore.FailOpen, redisstore.FailLocal} {
		prefix := "wt" + mode.String() + ":"
		s := newStore(t, c, redisstore.Options{Prefix: prefix, FailureMode: mode, LocalShare: 1})
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
	t.Parallel()
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
