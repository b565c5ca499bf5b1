package core_test

import (
	"context"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/require"
)

// TestDecisionsAllocateNothing: deciding for an existing key on the memory
// store allocates nothing, allowed or denied, for every algorithm alone and
// with a second limit (a pointer into the caller's Result passed through an
// interface once made every Result escape: 2 allocations per decision).
func TestDecisionsAllocateNothing(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation allocates")
	}
	ctx := context.Background()
	algs := coretest.Algorithms()
	for i, a := range algs {
		for _, limits := range [][]core.Limit{{a}, {a, algs[(i+1)%len(algs)]}} {
			if len(limits) == 2 && limits[1].Name == a.Name {
				continue
			}
			name := a.Name
			if len(limits) == 2 {
				name += "+" + limits[1].Name
			}
			t.Run(name, func(t *testing.T) {
				p, err := core.NewPolicy("allocs", limits...)
				require.NoError(t, err)
				l, err := core.NewLimiter(p, core.WithClock(coretest.NewClock(coretest.T0)))
				require.NoError(t, err)
				var res core.Result
				require.NoError(t, l.Take(ctx, "k", 1, &res)) // the key exists from here on
				allocs := testing.AllocsPerRun(200, func() {
					_ = l.Take(ctx, "k", 1, &res) // allowed, then denied: both paths
				})
				require.Zero(t, allocs, "allocations per decision")
				byValue := testing.AllocsPerRun(50, func() {
					r, _ := l.Allow(ctx, "k")
					_ = r
				})
				require.Zero(t, byValue, "allocations per Allow")
			})
		}
	}
}
