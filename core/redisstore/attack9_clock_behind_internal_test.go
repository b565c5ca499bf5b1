package redisstore

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestAttackClockBehindEveryCallSettles: a state written an hour ahead of
// Redis's TIME (a key a server whose clock ran an hour ahead used up) is
// brought back within its limit's span by every call that reads TIME (a
// decision, a peek, a take alone, a batch of takes, a batch of requests),
// for GCRA's inlined takes and the general step alike, and written: the
// key is denied, and recovers within the span, not the hour. A call on
// the caller's clock is decided at the key's latest instant, as before.
func TestAttackClockBehindEveryCallSettles(t *testing.T) {
	t.Parallel()
	c := redistest.Start(t).Client(t)
	ctx := context.Background()
	const span = int64(60_000_000) // µs: 5 a minute, a window of a minute
	policies := []*core.Policy{
		core.MustPolicy("g", core.Limit{Name: "g", Algorithm: core.GCRA{Rate: core.PerMinute(5)}}),
		core.MustPolicy("f", core.Limit{Name: "f", Algorithm: core.FixedWindow{Quota: 5, Window: time.Minute}}),
		core.MustPolicy("gf", core.Limit{Name: "g", Algorithm: core.GCRA{Rate: core.PerMinute(5)}},
			core.Limit{Name: "f", Algorithm: core.FixedWindow{Quota: 5, Window: time.Minute, Anchored: true}}),
	}
	calls := map[string]func(sc *compiled, keys []string) error{
		"decision": func(sc *compiled, keys []string) error {
			return fcall(ctx, c, sc, sc.fn, keys, "T", int64(1), int64(-1), int64(0), int64(0)).Err()
		},
		"peek": func(sc *compiled, keys []string) error {
			return fcall(ctx, c, sc, sc.fn, keys, "P", int64(1), int64(-1), int64(0), int64(0)).Err()
		},
		"take": func(sc *compiled, keys []string) error { return fcall(ctx, c, sc, sc.takeFn, keys).Err() },
		"takes batch": func(sc *compiled, keys []string) error {
			return fcall(ctx, c, sc, sc.batchFn, keys, int64(0), "1").Err()
		},
		"batch": func(sc *compiled, keys []string) error {
			return fcall(ctx, c, sc, sc.batchFn, keys, int64(0), "T", int64(1), int64(-1), int64(0)).Err()
		},
	}
	for _, p := range policies {
		sc := loadFunctions(t, c, p)
		for name, call := range calls {
			n := len(p.Limits())
			if n > 1 && name == "takes batch" || n > 1 && name == "take" {
				continue // one limit's calls
			}
			keys := limitKeys(fmt.Sprintf("behind:%s:%s:", p.Name(), name), "k", n)
			before, err := c.Time(ctx).Result()
			require.NoError(t, err)
			ahead := before.Add(time.Hour).UnixMicro()
			require.NoError(t, fcall(ctx, c, sc, sc.fn, keys, "T", int64(5), ahead, int64(0), int64(0)).Err())
			for _, k := range keys {
				stampSeen(t, c, k, ahead) // as a server on TIME an hour ahead writes it
			}
			require.NoError(t, call(sc, keys), "%s %s", p.Name(), name)
			after, err := c.Time(ctx).Result()
			require.NoError(t, err)
			for i, l := range p.Limits() {
				v, err := c.Get(ctx, keys[i]).Bytes()
				require.NoError(t, err, "%s %s: the state is kept", p.Name(), name)
				w := func(j int) int64 { return int64(math.Float64frombits(binary.LittleEndian.Uint64(v[8*j:]))) }
				idle := w(0) // GCRA: TAT
				if _, ok := l.Algorithm.(core.FixedWindow); ok {
					require.Equal(t, int64(5), w(0), "%s %s: still used up", p.Name(), name)
					idle = w(1) + span
				}
				require.Greater(t, idle, before.UnixMicro(), "%s %s: not admitted beyond the limit", p.Name(), name)
				require.LessOrEqual(t, idle, after.UnixMicro()+span, "%s %s %s: recovers within the span", p.Name(), name, l.Name)
				ttl, err := c.PTTL(ctx, keys[i]).Result()
				require.NoError(t, err)
				require.LessOrEqual(t, ttl, 2*time.Duration(span)*time.Microsecond+time.Second, "%s %s: a TTL for the span", p.Name(), name)
			}
		}
	}
	// On the caller's clock a state ahead stays: a lagging caller.
	sc := loadFunctions(t, c, policies[0])
	keys := limitKeys("behind:caller:", "k", 1)
	at := time.Now().UnixMicro()
	require.NoError(t, fcall(ctx, c, sc, sc.fn, keys, "T", int64(5), at+3_600_000_000, int64(0), int64(0)).Err())
	require.NoError(t, fcall(ctx, c, sc, sc.fn, keys, "T", int64(1), at, int64(0), int64(0)).Err())
	v, err := c.Get(ctx, keys[0]).Bytes()
	require.NoError(t, err)
	require.Equal(t, at+3_600_000_000+span, int64(math.Float64frombits(binary.LittleEndian.Uint64(v))))
}

// stampSeen sets the seen of the state at key (its last word) to at, as
// a decision on Redis TIME reading at writes it: a write on the caller's
// clock records none.
func stampSeen(t *testing.T, c redis.Cmdable, key string, at int64) {
	t.Helper()
	ctx := context.Background()
	v, err := c.Get(ctx, key).Bytes()
	require.NoError(t, err)
	require.Zero(t, math.Float64frombits(binary.LittleEndian.Uint64(v[len(v)-8:])), "no seen on the caller's clock")
	binary.LittleEndian.PutUint64(v[len(v)-8:], math.Float64bits(float64(at)))
	require.NoError(t, c.Set(ctx, key, v, redis.KeepTTL).Err())
}
