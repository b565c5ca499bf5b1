package redisstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestTakesBatchFunction: a batch of takes on Redis TIME only (gbatch in
// step.lua, for policies of one GCRA or LeakyBucket limit) replies, and
// leaves its keys (value and TTL), as the single-decision function called
// once per take at the instant the batch read, in the same order: random
// sequences of takes (costs 0 to 6, keys repeated, TTLs kept and set, a
// key of another type, one of malformed state, expiry slack or none) on
// random states.
func TestTakesBatchFunction(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(17, 19))
	policies := []*core.Policy{
		core.MustPolicy("g", core.Limit{Name: "g", Algorithm: core.GCRA{Rate: core.PerMinute(10), Burst: 5}}),
		core.MustPolicy("g1", core.Limit{Name: "g", Algorithm: core.GCRA{Rate: core.PerHour(1), Burst: 3}}),
		core.MustPolicy("lb", core.Limit{Name: "l", Algorithm: core.LeakyBucket{Rate: core.PerMinute(6), Capacity: 4, NoDelay: 2}}),
		// A debt of 8 intervals or more covers a take's: TTLs kept. Its
		// TTLs would end within seconds: a minute's slack keeps every
		// key through the test.
		core.MustPolicy("g20", core.Limit{Name: "g", Algorithm: core.GCRA{Rate: core.PerMinute(60), Burst: 20}}),
	}
	names := []string{"k0", "k1", "k2", "k3", "w", "m"}
	for pi, p := range policies {
		sc := loadFunctions(t, c, p)
		for trial := range 30 {
			gen, ref := fmt.Sprintf("g%d-%d:", pi, trial), fmt.Sprintf("r%d-%d:", pi, trial)
			slack := []int64{0, 1000, 60_000}[rng.IntN(3)]
			if p.Name() == "g20" {
				slack = 60_000
			}
			key := func(prefix, name string) string { return prefix + "{" + name + "}:0" }
			// The same random states under both prefixes, at instants
			// up to 3 s before now.
			now := time.Now().UnixMicro()
			_, err := c.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
				for _, prefix := range []string{gen, ref} {
					pipe.HSet(ctx, key(prefix, "w"), "f", "v")
					pipe.Set(ctx, key(prefix, "m"), "x,y", time.Hour)
				}
				// Deep debts taken a while ago: TTLs a take now may keep.
				for _, name := range names[:4] {
					at, cost := now-2_900_000, rng.Int64N(16)
					for _, prefix := range []string{gen, ref} {
						fcall(ctx, pipe, sc, sc.fn, []string{key(prefix, name)}, "T", cost, at, int64(0), slack)
					}
				}
				for range rng.IntN(12) {
					name := names[rng.IntN(4)]
					at, cost := now-rng.Int64N(3_000_000), rng.Int64N(4)
					for _, prefix := range []string{gen, ref} {
						fcall(ctx, pipe, sc, sc.fn, []string{key(prefix, name)}, "T", cost, at, int64(0), slack)
					}
				}
				return nil
			})
			require.NoError(t, err)
			m := 1 + rng.IntN(24)
			var seq []string
			var costs []int64
			bkeys := []string{key(gen, "k0")}
			bargs := []any{slack, int64(1)}
			seq, costs = append(seq, "k0"), append(costs, 1) // at least one take answered
			for range m - 1 {
				name := names[rng.IntN(len(names))]
				cost := int64(1)
				switch rng.IntN(6) {
				case 0:
					cost = 0 // keeps a key's TTL, or deletes a recovered key
				case 1:
					cost = rng.Int64N(7)
				}
				seq, costs = append(seq, name), append(costs, cost)
				bkeys = append(bkeys, key(gen, name))
				bargs = append(bargs, strconv.FormatInt(cost, 10))
			}
			start := time.Now()
			got := batchReplies(t, fcall(ctx, c, sc, sc.batchFn, bkeys, bargs...), m, sc.record, gen)
			at, ok := word(got[0].(string), 1)
			require.True(t, ok)
			var refCmds []*redis.Cmd
			states := map[string]keyState{}
			_, _ = c.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
				for j, name := range seq {
					refCmds = append(refCmds, fcall(ctx, pipe, sc, sc.fn, []string{key(ref, name)}, "T", costs[j], at, int64(0), slack))
				}
				for _, prefix := range []string{gen, ref} {
					for _, name := range names {
						states[key(prefix, name)] = readKey(ctx, pipe, key(prefix, name))
					}
				}
				return nil
			})
			elapsed := time.Since(start)
			var want []any
			for _, cmd := range refCmds {
				r, err := cmd.Text()
				if err != nil {
					want = append(want, errText(err, ref))
					continue
				}
				want = append(want, r)
			}
			require.Equal(t, want, got, "policy %s trial %d: %v costs %v", p.Name(), trial, seq, costs)
			for _, name := range names {
				// The reference wrote later: its TTLs end as much later
				// as time passed since the batch began, measured here on
				// the Go side; Redis's own reading of its clock for each
				// command may lag ours by a few milliseconds (a run of
				// go test -count=3 work saw 3.1 ms beyond elapsed, where
				// 2 ms were allowed for PEXPIRETIME's truncation).
				requireSameKeyButSeen(t, fmt.Sprintf("policy %s trial %d: %s", p.Name(), trial, name),
					states[key(ref, name)], states[key(gen, name)], at, -elapsed-10*time.Millisecond, time.Millisecond)
			}
		}
	}
}
