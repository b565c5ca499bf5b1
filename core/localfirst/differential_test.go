package localfirst_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/localfirst"
	"github.com/stretchr/testify/require"
)

// TestOneNodeDecidesAsMemory: a single node (Nodes 1) decides every take,
// peek and refund exactly as the in-memory store, whenever its rounds run.
func TestOneNodeDecidesAsMemory(t *testing.T) {
	t.Parallel()
	_, client := startRedis(t)
	policies := []*core.Policy{
		core.MustPolicy("fw", core.Limit{Name: "fw", Algorithm: core.FixedWindow{Quota: 7, Window: 10 * time.Second}}),
		core.MustPolicy("sw", core.Limit{Name: "sw", Algorithm: core.SlidingWindow{Quota: 9, Window: 10 * time.Second}}),
		core.MustPolicy("both",
			core.Limit{Name: "second", Algorithm: core.SlidingWindow{Quota: 3, Window: time.Second}},
			core.Limit{Name: "minute", Algorithm: core.FixedWindow{Quota: 20, Window: time.Minute}}),
	}
	for _, p := range policies {
		t.Run(p.Name(), func(t *testing.T) {
			clk := coretest.NewClock(t0.Add(-time.Nanosecond))
			n := newNodes(t, client, clk, p, 1, localfirst.Options{Prefix: "diff:" + p.Name() + ":"})[0]
			ms, err := core.NewMemoryStore(core.MemoryOptions{})
			require.NoError(t, err)
			ref, err := core.NewLimiter(p, core.WithStore(ms), core.WithClock(clk))
			require.NoError(t, err)
			differential(t, n, ref, clk, 1, 2*time.Second, true, func(step int, what string, want, got core.Result) {
				t.Helper()
				require.Equal(t, want.Limits(), got.Limits(), "step %d %s", step, what)
			})
		})
	}
}

// differential drives node n and ref, a limiter of the same policy on the
// in-memory store, through the same 3,000 random steps on three keys
// (clock moves of up to maxStep, refunds, peeks, takes; with rounds, sync
// rounds of n), and requires them to agree as same says.
func differential(t *testing.T, n node, ref *core.Limiter, clk *coretest.Clock, seed uint64, maxStep time.Duration, rounds bool, same func(step int, what string, want, got core.Result)) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed+1))
	ctx := context.Background()
	var taken [][2]core.Result // got, want
	for step := 0; step < 3000; step++ {
		key := fmt.Sprint("k", rng.IntN(3))
		switch r := rng.IntN(20); {
		case r < 3:
			clk.Advance(time.Duration(rng.Int64N(int64(maxStep))))
		case r < 5 && rounds:
			require.NoError(t, n.s.Sync(ctx))
		case r < 6 && len(taken) > 0:
			tk := taken[rng.IntN(len(taken))]
			got, gerr := n.l.Refund(ctx, key, tk[0])
			want, werr := ref.Refund(ctx, key, tk[1])
			require.Equal(t, werr != nil, gerr != nil, "step %d refund: %v / %v", step, gerr, werr)
			same(step, "refund", want, got)
		case r < 8:
			cost := 1 + rng.Int64N(3)
			got, err := n.l.Peek(ctx, key, cost)
			require.NoError(t, err)
			want, err := ref.Peek(ctx, key, cost)
			require.NoError(t, err)
			same(step, "peek", want, got)
		default:
			cost := 1 + rng.Int64N(3)
			got, err := n.l.AllowN(ctx, key, cost)
			require.NoError(t, err)
			want, err := ref.AllowN(ctx, key, cost)
			require.NoError(t, err)
			same(step, fmt.Sprintf("take %s cost %d at %v", key, cost, clk.Now()), want, got)
			if got.Taken() && len(taken) < 8 {
				taken = append(taken, [2]core.Result{got, want})
			}
		}
	}
}
