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

// costAlgorithms are the configurations the cost property runs on: every
// algorithm at two quotas, and coretest's list.
func costAlgorithms() []core.Algorithm {
	algs := append(allAlgorithms(5, 4*time.Second), allAlgorithms(3, time.Second)...)
	for _, l := range coretest.Algorithms() {
		algs = append(algs, l.Algorithm)
	}
	return algs
}

// costRandomState builds a state of p by a random schedule of takes
// (costs 1 to 3), refunds and denied attempts, and returns it with the
// instant of its last step.
func costRandomState(p *core.Probe, rng *rand.Rand) ([]int64, int64) {
	st := make([]int64, p.Words())
	now := t0.UnixNano()
	var takenAt, takenCost int64 = -1, 0
	for i, n := 0, rng.IntN(25); i < n; i++ {
		now += rng.Int64N(int64(1500 * time.Millisecond))
		if rng.IntN(6) == 0 && takenAt >= 0 {
			p.Refund(st, now, takenAt, takenCost)
			takenAt = -1
			continue
		}
		c := 1 + rng.Int64N(3)
		if p.Take(st, now, c, true).Allowed {
			takenAt, takenCost = now, c
		} else {
			p.Denied(st, now, c)
		}
	}
	return st, now
}

// A take of cost c is never more lenient than c takes of cost 1 at the
// same instant, for every algorithm: when it passes, so would each of them
// one after the other. (The class of Backoff letting a cost above 1 through
// where its failures one by one would have been locked out.) WarmUp is the
// documented exception: after Guava, a request passes when the key is free
// whatever its cost (up to Rate.Count) and the key pays for it afterwards,
// so its cost-c take is c units paid in advance, not c units at once.
func TestCostNeverMoreLenientThanUnits(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(81, 82))
	for _, a := range costAlgorithms() {
		if _, ok := a.(core.WarmUp); ok {
			continue
		}
		p, err := core.NewProbe(a)
		require.NoError(t, err)
		name := fmt.Sprintf("%T%+v", a, a)
		for i := 0; i < 2000; i++ {
			st, now := costRandomState(p, rng)
			now += rng.Int64N(int64(2 * time.Second))
			for c := int64(2); c <= 6; c++ {
				if !p.Take(append([]int64(nil), st...), now, c, false).Allowed {
					continue
				}
				units := append([]int64(nil), st...)
				for u := int64(0); u < c; u++ {
					// A plain check: testify's cost, per unit, was most of
					// the test's.
					if !p.Take(units, now, 1, true).Allowed {
						t.Fatalf("%s state %v: cost %d passes at %d, its unit %d would not", name, st, c, now, u+1)
					}
				}
			}
		}
	}
}
