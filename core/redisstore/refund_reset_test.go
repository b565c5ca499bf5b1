package redisstore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestRefundAfterOtherProcessReset: two processes (two stores and
// limiters on one Redis and prefix) share a key. A takes; the key is then
// forgotten — B resets it, or Redis loses it (evicted, here deleted) — and
// B takes again, which creates a new state; A's refund then gives nothing
// back to that state: its take is not part of it. (Before, it gave its cost
// back once: B's reset is remembered by B alone, and an eviction by no
// one.) As a control, the same refund without the reset does give back.
// Every algorithm alone and in policies of four, on Redis TIME and on the
// callers' clock.
func TestRefundAfterOtherProcessReset(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	c := srv.Client(t)
	ctx := context.Background()
	algs := coretest.Algorithms()
	var policies []*core.Policy
	for i, a := range algs {
		policies = append(policies, core.MustPolicy(a.Name, a))
		if i%4 == 3 {
			policies = append(policies, core.MustPolicy(fmt.Sprint("multi-", i), algs[i-3:i+1]...))
		}
	}
	for _, callerClock := range []bool{false, true} {
		for _, p := range policies {
			for _, forget := range []string{"none", "reset", "evict"} {
				name := fmt.Sprintf("%s/%s/clock=%v", p.Name(), forget, callerClock)
				prefix := "rr:" + name + ":"
				clk := newClock()
				var limiters [2]*core.Limiter
				for i := range limiters {
					s := newStore(t, c, redisstore.Options{Prefix: prefix, CallerClock: callerClock, ExpirySlack: time.Hour})
					limiters[i] = limiterOn(t, s, p, core.WithClock(clk))
				}
				a, b := limiters[0], limiters[1]
				// On Redis TIME a window boundary between the take and the
				// refund lets the control's refund give nothing back,
				// rightly: the scenario counts when made within one step of
				// Redis's clock (on a fresh key otherwise).
				var before, after map[string]string
				redistest.InOneTimeStep(t, c, func(attempt int) {
					key := fmt.Sprint("k", attempt)
					taken, err := a.AllowN(ctx, key, 2)
					require.NoError(t, err, name)
					require.True(t, taken.Allowed, name)
					clk.Advance(time.Millisecond)
					switch forget {
					case "reset":
						require.NoError(t, b.Reset(ctx, key), name)
					case "evict":
						keys := limitKeys(t, c, prefix)
						require.NotEmpty(t, keys, name)
						require.NoError(t, c.Del(ctx, keys...).Err(), name)
					}
					clk.Advance(time.Millisecond)
					r, err := b.Allow(ctx, key)
					require.NoError(t, err, name)
					require.True(t, r.Allowed || forget == "none", "%s: a forgotten key's state is made anew", name)
					clk.Advance(time.Millisecond)
					before = limitStates(t, c, prefix)
					_, err = a.Refund(ctx, key, taken)
					require.NoError(t, err, name)
					after = limitStates(t, c, prefix)
				})
				if forget == "none" {
					require.NotEqual(t, before, after, "%s: the refund gives back", name)
				} else {
					require.Equal(t, before, after, "%s: the refund gives nothing back to the new state", name)
				}
			}
		}
	}
}

// limitKeys returns the limit keys under prefix (not the refunds' and
// resets' markers).
func limitKeys(t *testing.T, c redis.UniversalClient, prefix string) []string {
	t.Helper()
	keys, err := c.Keys(context.Background(), prefix+"*").Result()
	require.NoError(t, err)
	var out []string
	for _, k := range keys {
		if i := strings.LastIndex(k, "}:"); i >= 0 && !strings.HasPrefix(k[i+2:], "f") {
			out = append(out, k)
		}
	}
	return out
}

// limitStates returns the values of the limit keys under prefix.
func limitStates(t *testing.T, c redis.UniversalClient, prefix string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, k := range limitKeys(t, c, prefix) {
		v, err := c.Get(context.Background(), k).Result()
		require.NoError(t, err)
		out[k] = v
	}
	return out
}
