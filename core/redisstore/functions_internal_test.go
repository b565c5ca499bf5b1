package redisstore

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// The helpers of the tests that call a policy's Redis functions directly
// (TestBatchFunction, TestTakeFunction and their neighbours).

// functionPolicies returns every algorithm of coretest.Algorithms alone,
// then multi random policies of two or three of them (alternately).
func functionPolicies(rng *rand.Rand, multi int) []*core.Policy {
	algs := coretest.Algorithms()
	var policies []*core.Policy
	for _, a := range algs {
		policies = append(policies, core.MustPolicy("one-"+a.Name, a))
	}
	for i := range multi {
		perm := rng.Perm(len(algs))[:2+i%2]
		var ls []core.Limit
		for _, k := range perm {
			ls = append(ls, algs[k])
		}
		policies = append(policies, core.MustPolicy(fmt.Sprint("multi-", i), ls...))
	}
	return policies
}

// loadFunctions compiles p and loads the library into c (once: every
// policy shares it).
func loadFunctions(t *testing.T, c redis.Cmdable, p *core.Policy) *compiled {
	t.Helper()
	sc, err := compile(p)
	require.NoError(t, err)
	if err := c.FunctionLoad(context.Background(), sc.lib).Err(); err == nil || !strings.Contains(err.Error(), "already exists") {
		require.NoError(t, err)
	}
	return sc
}

// fcall calls the library's function fn for sc's policy: args, then the
// policy argument, as the store sends them.
func fcall(ctx context.Context, c redis.Cmdable, sc *compiled, fn string, keys []string, args ...any) *redis.Cmd {
	return c.FCall(ctx, fn, keys, append(args[:len(args):len(args)], sc.specArg)...)
}

// limitKeys returns the keys of a policy of n limits for the key name,
// under prefix: one per limit, under one hash tag.
func limitKeys(prefix, name string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s{%s}:%d", prefix, name, i)
	}
	return out
}

// keyState is a key's value and expiry time, read in a pipeline.
type keyState struct {
	val *redis.StringCmd
	exp *redis.DurationCmd
}

// readKey queues the reads of k's keyState in pipe.
func readKey(ctx context.Context, pipe redis.Pipeliner, k string) keyState {
	return keyState{pipe.Get(ctx, k), pipe.PExpireTime(ctx, k)}
}

// requireSameKeyButSeen is requireSameKey for a reference decided on the
// caller's clock at the instant got was decided at on Redis TIME: the
// reference records no seen (the value's last word), got that instant
// where it wrote the key (else the 0 of a state written on the caller's
// clock).
func requireSameKeyButSeen(t *testing.T, what string, want, got keyState, at int64, lo, hi time.Duration) {
	t.Helper()
	cut := func(k keyState, seen ...float64) keyState {
		v, err := k.val.Bytes()
		if err != nil || len(v) < 8 {
			return k
		}
		require.Contains(t, seen, math.Float64frombits(binary.LittleEndian.Uint64(v[len(v)-8:])), "seen of %s", what)
		s := redis.NewStringCmd(context.Background())
		s.SetVal(string(v[:len(v)-8]))
		return keyState{s, k.exp}
	}
	requireSameKey(t, what, cut(want, 0), cut(got, 0, float64(at)), lo, hi)
}

// requireSameKey requires got to hold want's value (or the same error),
// and an expiry time within [lo, hi] of want's when both keys have one, the
// same answer (-1 no TTL, -2 no key) otherwise.
func requireSameKey(t *testing.T, what string, want, got keyState, lo, hi time.Duration) {
	t.Helper()
	wv, werr := want.val.Result()
	gv, gerr := got.val.Result()
	require.Equal(t, fmt.Sprint(werr), fmt.Sprint(gerr), "%s", what)
	require.Equal(t, wv, gv, "state of %s", what)
	we, err := want.exp.Result()
	require.NoError(t, err)
	ge, err := got.exp.Result()
	require.NoError(t, err)
	if we < 0 || ge < 0 {
		require.Equal(t, we, ge, "TTL of %s", what)
		return
	}
	require.GreaterOrEqual(t, ge, we+lo, "TTL of %s", what)
	require.LessOrEqual(t, ge, we+hi, "TTL of %s", what)
}
