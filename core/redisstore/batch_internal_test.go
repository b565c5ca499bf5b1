package redisstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestBatchFunction calls a library's batch function directly on random
// sequences of requests (every op, costs 0 to 6, instants moving forward,
// backward and standing still, keys repeated, a key of the wrong type and
// one of malformed state) and requires the replies, and the keys left
// behind (value and TTL), to be those of the single-decision function
// called once per request in the same order.
func TestBatchFunction(t *testing.T) {
	t.Parallel()
	c := redistest.Start(t).Client(t)
	batchTrials(t, c, rand.New(rand.NewPCG(7, 11)), 20, 1000)
}

// TestBatchFunctionOnTime is TestBatchFunction with every request decided
// as on Redis TIME (LoadOnTime): an instant behind a key's last decision
// on TIME (up to 3 s back) is a clock that went back, which settle moves
// the key's state back for, and a batch must settle each key once, as the
// single-decision function called once per request does, whatever the
// requests before it in the batch read or wrote.
func TestBatchFunctionOnTime(t *testing.T) {
	t.Parallel()
	c := redistest.Start(t).Client(t)
	require.NoError(t, LoadOnTime(context.Background(), c))
	batchTrials(t, c, rand.New(rand.NewPCG(8, 11)), 8, 3_000_000)
}

// batchTrials runs TestBatchFunction's trials, per policy, with instants
// going back by up to back µs now and then.
func batchTrials(t *testing.T, c *redis.Client, rng *rand.Rand, trials int, back int64) {
	ctx := context.Background()
	ops := []string{"T", "T", "T", "T", "P", "P", "F", "R"}
	for pi, p := range functionPolicies(rng, 6) {
		sc := loadFunctions(t, c, p)
		n := len(p.Limits())
		for trial := range trials {
			m := 1 + rng.IntN(40)
			now := int64(1_700_000_000_000_000) + rng.Int64N(1e6)
			var args [][]any
			var names, markers []string
			for range m {
				switch rng.IntN(4) {
				case 0:
					now += rng.Int64N(3_000_000)
				case 1:
					now -= rng.Int64N(back)
				}
				cost := 1 + rng.Int64N(6)
				if rng.IntN(10) == 0 {
					cost = 0
				}
				op := ops[rng.IntN(len(ops))]
				var taken any = now - rng.Int64N(2_000_000)
				if op == "F" && rng.IntN(8) > 0 { // else a malformed refund
					// The take's instant, each limit's hold, the
					// marker's least TTL (see step.lua).
					arg := fmt.Sprint(taken)
					for range n {
						arg += fmt.Sprint(",", rng.Int64N(4_000_000_000))
					}
					taken = arg + fmt.Sprint(",", 10_000+rng.IntN(3)*1000)
				}
				if op == "R" {
					taken = int64(10_000 + rng.IntN(3)*1000) // the marker's TTL: no marker expires within the EXEC
				}
				args = append(args, []any{op, cost, now, taken, int64(rng.IntN(2) * 1000)})
				names = append(names, fmt.Sprint("k", rng.IntN(4)))
				// Refunds' and resets' markers: a few names, repeated
				// (one request sent twice within a batch or across it).
				markers = append(markers, fmt.Sprint("f", rng.IntN(3)))
			}
			keys := func(prefix, name string) []string { return limitKeys(prefix, name, n) }
			rkeys := func(prefix string, j int) []string {
				out := keys(prefix, names[j])
				if args[j][0] == "F" || args[j][0] == "R" {
					out = append(out, fmt.Sprintf("%s{%s}:%s", prefix, names[j], markers[j]))
				}
				return out
			}
			seq, bat := fmt.Sprintf("s%d-%d:", pi, trial), fmt.Sprintf("b%d-%d:", pi, trial)
			for j := range m {
				args[j][4] = args[0][4] // one slack: one store's
			}
			var bkeys []string
			bargs := []any{args[0][4]}
			for j := range m {
				bkeys = append(bkeys, rkeys(bat, j)...)
				bargs = append(bargs, args[j][:4]...)
			}
			// One MULTI: Redis checks expiry against the instant EXEC
			// started for every command inside it, so no key (TTL ≥ 1 ms)
			// expires between the sequential calls, the batch and the
			// reads, however slowly this test runs.
			var seqCmds []*redis.Cmd
			var batCmd *redis.Cmd
			states := map[string]keyState{}
			start := time.Now()
			_, _ = c.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
				for _, prefix := range []string{seq, bat} {
					pipe.HSet(ctx, keys(prefix, "k3")[0], "f", "v")
					pipe.Set(ctx, keys(prefix, "k2")[n-1], "x,y", time.Hour)
				}
				for j := range m {
					seqCmds = append(seqCmds, fcall(ctx, pipe, sc, sc.fn, rkeys(seq, j), args[j]...))
				}
				batCmd = fcall(ctx, pipe, sc, sc.batchFn, bkeys, bargs...)
				for _, prefix := range []string{seq, bat} {
					for _, name := range []string{"k0", "k1", "k2", "k3"} {
						for _, k := range keys(prefix, name) {
							states[k] = readKey(ctx, pipe, k)
						}
						for _, f := range []string{"f0", "f1", "f2"} {
							k := fmt.Sprintf("%s{%s}:%s", prefix, name, f)
							states[k] = readKey(ctx, pipe, k)
						}
					}
				}
				return nil
			})
			elapsed := time.Since(start)
			var want []any
			for _, cmd := range seqCmds {
				r, err := cmd.Text()
				if err != nil {
					want = append(want, errText(err, seq))
					continue
				}
				want = append(want, r)
			}
			got := batchReplies(t, batCmd, m, sc.record, bat)
			require.Equal(t, want, got, "policy %s trial %d: %v on %v", p.Name(), trial, args, names)
			for _, name := range []string{"k0", "k1", "k2", "k3"} {
				for i := range n + 3 {
					sk, bk := fmt.Sprintf("%s{%s}:f%d", seq, name, i-n), fmt.Sprintf("%s{%s}:f%d", bat, name, i-n)
					if i < n {
						sk, bk = keys(seq, name)[i], keys(bat, name)[i]
					}
					// The same TTL: the batch's key, written later in the
					// same EXEC, expires as much later as time passed.
					requireSameKey(t, fmt.Sprintf("policy %s trial %d: %s", p.Name(), trial, sk), states[sk], states[bk],
						-time.Millisecond, elapsed+time.Millisecond)
				}
			}
		}
	}
}

// errText is err's message without the key prefix and without the
// script's location, which Redis appends to the errors raised by
// redis.call (the batch function catches them with redis.pcall).
func errText(err error, prefix string) string {
	msg, _, _ := strings.Cut(err.Error(), " script: ")
	return strings.ReplaceAll(msg, prefix, "P:")
}

// TestBatchFunctionTime: a batch reads Redis TIME once, for all its
// requests that ask for it (now -1); the others keep their own instant.
func TestBatchFunctionTime(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	sc := loadFunctions(t, c, core.MustPolicy("time", core.Limit{Name: "g", Algorithm: core.GCRA{Rate: core.PerHour(1), Burst: 100}}))
	before := time.Now().UnixMicro()
	rs := batchReplies(t, fcall(ctx, c, sc, sc.batchFn, []string{"t{a}:0", "t{b}:0", "t{a}:0", "t{a}:0"}, int64(0),
		"T", int64(1), int64(-1), int64(0),
		"T", int64(1), int64(-1), int64(0),
		"P", int64(1), int64(5_000_000), int64(0),
		"T", int64(1), int64(-1), int64(0)), 4, sc.record, "")
	after := time.Now().UnixMicro()
	at, _ := word(rs[0].(string), 1)
	require.GreaterOrEqual(t, at, before-1000)
	require.LessOrEqual(t, at, after+1000)
	for j, want := range []int64{at, at, 5_000_000, at} {
		v, ok := word(rs[j].(string), 1)
		require.True(t, ok)
		require.Equal(t, want, v, "instant of request %d", j)
	}
	// A short record: two takes on t{a}, in one batch, hold two
	// intervals of the burst of 100.
	require.Len(t, rs[3].(string), shortRecord)
	tat, _ := word(rs[3].(string), 0)
	require.Equal(t, int64(2*3_600_000_000), tat, "two takes on t{a}, in one batch")
	ttl, err := c.PTTL(ctx, "t{a}:0").Result()
	require.NoError(t, err)
	require.Positive(t, ttl)
}

// TestSlot: Redis Cluster's slots (CLUSTER KEYSLOT) of a few keys.
func TestSlot(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]uint16{
		"foo": 12182, "bar": 5061, "123456789": 0x31c3 % 16384,
		"{foo}:0": 12182, "x{bar}y{foo}": 5061, "{}foo": slot("{}foo"), "a{": slot("a{"),
	} {
		require.Equal(t, want, slot(key), "%q", key)
	}
	srv := redistest.Start(t, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf")
	c := srv.Client(t)
	keys := []string{"{}foo", "a{", "floodgate:{0123456789abcdef0123456789abcdef}:1", "p{x}:{y}", "{{a}}"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 { // random bytes, braces among them
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = "{}ab\x00\xff"[rng.IntN(6)]
			if rng.IntN(2) == 0 {
				b[i] = byte(rng.IntN(256))
			}
		}
		keys = append(keys, string(b))
	}
	cmds := make([]*redis.IntCmd, len(keys))
	_, err := c.Pipelined(context.Background(), func(p redis.Pipeliner) error {
		for i, key := range keys {
			cmds[i] = p.ClusterKeySlot(context.Background(), key)
		}
		return nil
	})
	require.NoError(t, err)
	for i, key := range keys {
		require.Equal(t, uint16(cmds[i].Val()), slot(key), "%q", key)
	}
}

// TestGroup: calls are grouped by policy, and on a Cluster by slot too,
// each group in queue order, past the 8 groups searched linearly as well.
func TestGroup(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 5))
	libs := []*compiled{{spec: "a"}, {spec: "b"}, {spec: "c"}}
	for _, cluster := range []bool{false, true} {
		s := &Store{cluster: cluster}
		var batch []*call
		for i := range 300 {
			batch = append(batch, &call{sc: libs[rng.IntN(len(libs))], keys: []string{fmt.Sprintf("p{%d}:0", rng.IntN(20))}, args: []any{i}})
		}
		groups := s.group(batch)
		seen := 0
		for _, g := range groups {
			seen += len(g)
			for j, c := range g {
				require.Equal(t, g[0].sc.spec, c.sc.spec)
				if cluster {
					require.Equal(t, slot(g[0].keys[0]), slot(c.keys[0]))
				}
				if j > 0 {
					require.Less(t, g[j-1].args[0].(int), c.args[0].(int), "queue order")
				}
			}
		}
		require.Equal(t, len(batch), seen)
		if cluster {
			require.Greater(t, len(groups), 8)
		} else {
			require.Len(t, groups, 3)
		}
	}
}
