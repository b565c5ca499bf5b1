package core_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/require"
)

// greedy takes cost 1 on st at now until denied (at most 64 times),
// recording denials as a store does, and returns how many passed.
func greedy(p *core.Probe, st []int64, now int64) int64 {
	var n int64
	for ; n < 64; n++ {
		if !p.Take(st, now, 1, true).Allowed {
			p.Denied(st, now, 1)
			return n
		}
	}
	return n
}

// The memory store forgets the entry whose forgetCost is least, and its
// documentation promises what a forgotten key gains: for every algorithm
// and random histories, a client taking all it can at random later
// instants gets, from a forgotten (fresh) state, at most forgetCost more
// than from the state kept, at every point of the schedule (for WarmUp
// and Backoff, whose later passes depend on the phase of the requests,
// until the kept state's current wait ends); and a state
// that has recovered costs nothing to forget.
func TestForgetCostBoundsWhatForgettingAdmits(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 12))
	algs := map[string]core.Algorithm{}
	for _, l := range coretest.Algorithms() {
		algs[l.Name] = l.Algorithm
	}
	for i, a := range allAlgorithms(8, 4*time.Second) {
		algs[fmt.Sprint("q8-", i)] = a
	}
	histories := 400
	if testing.Short() {
		histories = 100
	}
	for name, a := range algs {
		p, err := core.NewProbe(a)
		require.NoError(t, err)
		for h := 0; h < histories; h++ {
			st := make([]int64, p.Words())
			now := coretest.T0.UnixNano()
			for k := rng.IntN(30); k > 0; k-- {
				now += rng.Int64N(int64(1500 * time.Millisecond))
				for c := rng.IntN(6); c > 0; c-- {
					if !p.Take(st, now, 1+rng.Int64N(2), true).Allowed {
						p.Denied(st, now, 1)
					}
				}
			}
			now += rng.Int64N(int64(time.Second))
			// Plain checks in the loops: testify's cost, per check, was
			// most of the test's.
			m := p.ForgetCost(st, now)
			if m < 0 {
				t.Fatalf("%s history %d: ForgetCost %d < 0", name, h, m)
			}
			if p.IdleAt(st) <= now && m != 0 {
				t.Fatalf("%s history %d: a recovered state costs nothing to forget, ForgetCost %d", name, h, m)
			}
			_, warm := a.(core.WarmUp)
			_, backoff := a.(core.Backoff)
			warm = warm || backoff
			kept := append([]int64(nil), st...)
			forgot := make([]int64, p.Words())
			var gotKept, gotForgot int64
			at := now
			for k := 0; k < 40; k++ {
				if warm && p.Take(st, at, 1, false).Allowed {
					break
				}
				gotKept += greedy(p, kept, at)
				gotForgot += greedy(p, forgot, at)
				if gotForgot-gotKept > m {
					t.Fatalf("%s history %d: forgetting at %v gained %d, more than its cost %d, by %v",
						name, h, time.Duration(now-coretest.T0.UnixNano()), gotForgot-gotKept, m, time.Duration(at-now))
				}
				at += rng.Int64N(int64(700 * time.Millisecond))
			}
		}
	}
}
