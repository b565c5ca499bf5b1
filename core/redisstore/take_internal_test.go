package redisstore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestTakeFunction calls a library's take function (take.lua, with the
// arguments the store leaves out when they are the defaults) and its
// single-decision function (main.lua) on the same random sequences of takes
// (costs 1 to 6, instants moving forward, backward and standing still, keys
// repeated, expiry slack or none, a key of malformed state), on every
// algorithm alone and on policies of several: the replies, and the keys
// left behind (value and TTL), are the same.
func TestTakeFunction(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 13))
	for pi, p := range functionPolicies(rng, 4) {
		sc := loadFunctions(t, c, p)
		n := len(p.Limits())
		for trial := range 10 {
			now := int64(1_700_000_000_000_000) + rng.Int64N(1e6)
			slack := int64(rng.IntN(2) * 1000)
			gen, ref := fmt.Sprintf("g%d-%d:", pi, trial), fmt.Sprintf("r%d-%d:", pi, trial)
			keys := func(prefix, name string) []string { return limitKeys(prefix, name, n) }
			var genCmds, refCmds []*redis.Cmd
			states := map[string]keyState{}
			start := time.Now()
			// One MULTI, as TestBatchFunction: no key expires in between.
			_, _ = c.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
				for _, prefix := range []string{gen, ref} {
					pipe.Set(ctx, keys(prefix, "k2")[n-1], "x,y", time.Hour)
				}
				for range 30 {
					switch rng.IntN(4) {
					case 0:
						now += rng.Int64N(3_000_000)
					case 1:
						now -= rng.Int64N(1000)
					}
					cost := 1 + rng.Int64N(6)
					name := fmt.Sprint("k", rng.IntN(3))
					args := []any{cost, now} // take.lua's, as the store sends them
					if slack != 0 {
						args = append(args, slack)
					}
					genCmds = append(genCmds, fcall(ctx, pipe, sc, sc.takeFn, keys(gen, name), args...))
					refCmds = append(refCmds, fcall(ctx, pipe, sc, sc.fn, keys(ref, name), "T", cost, now, int64(0), slack))
				}
				for _, prefix := range []string{gen, ref} {
					for _, name := range []string{"k0", "k1", "k2"} {
						for _, k := range keys(prefix, name) {
							states[k] = readKey(ctx, pipe, k)
						}
					}
				}
				return nil
			})
			elapsed := time.Since(start)
			for j := range genCmds {
				g, gerr := genCmds[j].Text()
				r, rerr := refCmds[j].Text()
				require.Equal(t, rerr == nil, gerr == nil, "policy %s trial %d take %d: %v, %v", p.Name(), trial, j, rerr, gerr)
				if rerr != nil {
					require.Equal(t, errText(rerr, ref), errText(gerr, gen), "policy %s trial %d take %d", p.Name(), trial, j)
				}
				require.Equal(t, r, g, "policy %s trial %d take %d", p.Name(), trial, j)
			}
			for _, name := range []string{"k0", "k1", "k2"} {
				for i := range n {
					gk, rk := keys(gen, name)[i], keys(ref, name)[i]
					requireSameKey(t, fmt.Sprintf("policy %s trial %d: %s", p.Name(), trial, gk), states[rk], states[gk],
						-elapsed-time.Millisecond, elapsed+time.Millisecond)
				}
			}
		}
	}
}

// TestTakeFunctionTime: the take function reads Redis TIME unless given an
// instant, and takes cost 1 unless given a cost.
func TestTakeFunctionTime(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	for _, a := range coretest.Algorithms() {
		sc := loadFunctions(t, c, core.MustPolicy("time-"+a.Name, a))
		key := []string{"tt{" + a.Name + "}:0"}
		before := time.Now().UnixMicro()
		r1, err := fcall(ctx, c, sc, sc.takeFn, key).Text()
		require.NoError(t, err, a.Name)
		r2, err := fcall(ctx, c, sc, sc.takeFn, key, int64(1)).Text()
		require.NoError(t, err, a.Name)
		after := time.Now().UnixMicro()
		for _, r := range []string{r1, r2} {
			require.True(t, sc.fits(len(r)), "%s: a reply of %d bytes", a.Name, len(r))
			at, ok := word(r, 1)
			require.True(t, ok)
			require.GreaterOrEqual(t, at, before-1000, a.Name)
			require.LessOrEqual(t, at, after+1000, a.Name)
		}
		// As the single-decision function decides a take of cost 1 at the
		// same instants.
		at1, _ := word(r1, 1)
		at2, _ := word(r2, 1)
		ref := []string{"tr{" + a.Name + "}:0"}
		w1, err := fcall(ctx, c, sc, sc.fn, ref, "T", int64(1), at1, int64(0), int64(0)).Text()
		require.NoError(t, err)
		w2, err := fcall(ctx, c, sc, sc.fn, ref, "T", int64(1), at2, int64(0), int64(0)).Text()
		require.NoError(t, err)
		require.Equal(t, []string{w1, w2}, []string{r1, r2}, a.Name)
	}
}

// TestBatchShortTakes: in a batch, a take on Redis TIME may be sent as its
// cost alone; it is decided as the long form (op, cost, -1, 0) is, on every
// algorithm, next to requests of the long form.
func TestBatchShortTakes(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t)
	c := srv.Client(t)
	ctx := context.Background()
	for _, a := range coretest.Algorithms() {
		sc := loadFunctions(t, c, core.MustPolicy("short-"+a.Name, a))
		var got [2][]any
		// On Redis TIME a window boundary between the two calls changes
		// what they count: they are compared when made within one step of
		// Redis's clock (on fresh keys otherwise).
		redistest.InOneTimeStep(t, c, func(attempt int) {
			for i, short := range []bool{true, false} {
				keys := []string{"s{a}:0", "s{b}:0", "s{a}:0", "s{a}:0"}
				for k := range keys {
					keys[k] = fmt.Sprint(a.Name, i, "-", attempt) + keys[k]
				}
				take := func(cost int64) []any {
					if short {
						return []any{cost}
					}
					return []any{"T", cost, int64(-1), int64(0)}
				}
				args := []any{int64(0)}
				args = append(args, take(1)...)
				args = append(args, take(2)...)
				args = append(args, "P", int64(1), int64(-1), int64(0))
				args = append(args, take(1)...)
				got[i] = batchReplies(t, fcall(ctx, c, sc, sc.batchFn, keys, args...), 4, sc.record, "")
			}
		})
		for j := range got[0] {
			s, l := got[0][j].(string), got[1][j].(string)
			require.Len(t, s, len(l), "%s request %d", a.Name, j)
			if len(s) == shortRecord {
				// A short record's outcome is counted from the instant.
				sv, _ := word(s, 0)
				lv, _ := word(l, 0)
				require.Equal(t, lv, sv, "%s request %d", a.Name, j)
				continue
			}
			for w := range 2 + 7 {
				if w == 1 {
					continue // the instant: Redis TIME, read by each call
				}
				sv, _ := word(s, w)
				lv, _ := word(l, w)
				if w >= 4 {
					// resetAfter, retryAfter, delay: counted from the
					// instant.
					require.InDelta(t, lv, sv, 1e6, "%s request %d word %d", a.Name, j, w)
					continue
				}
				require.Equal(t, lv, sv, "%s request %d word %d", a.Name, j, w)
			}
		}
	}
}
