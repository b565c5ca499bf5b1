package coretest

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
)

// Keyed is one key of a Limiter, for tests that take and refund it step
// by step, on any store: every call fails the test on an error.
type Keyed struct {
	T   testing.TB
	L   *core.Limiter
	Key string
}

// Take takes cost units and reports the decision and whether it admitted.
func (k Keyed) Take(cost int64) (core.Result, bool) {
	k.T.Helper()
	r, err := k.L.AllowN(context.Background(), k.Key, cost)
	if err != nil {
		k.T.Fatalf("take %d of %q: %v", cost, k.Key, err)
	}
	return r, r.Allowed
}

// MustTake takes cost units, failing the test unless they are admitted.
func (k Keyed) MustTake(cost int64) core.Result {
	k.T.Helper()
	r, ok := k.Take(cost)
	if !ok {
		k.T.Fatalf("take %d of %q: denied, want admitted", cost, k.Key)
	}
	return r
}

// Refund refunds r.
func (k Keyed) Refund(r core.Result) {
	k.T.Helper()
	if _, err := k.L.Refund(context.Background(), k.Key, r); err != nil {
		k.T.Fatalf("refund of %q: %v", k.Key, err)
	}
}

// Fill takes 64, 32, 16, 8, 4, 2, 1 and 1 units in turn and returns the
// units admitted: all the key has left, up to 128, at one instant.
func (k Keyed) Fill() int64 {
	k.T.Helper()
	kept := int64(0)
	for _, c := range []int64{64, 32, 16, 8, 4, 2, 1, 1} {
		if _, ok := k.Take(c); ok {
			kept += c
		}
	}
	return kept
}

// KeptAround returns the units a key keeps at one instant around the
// refund of taken: Fill, the refund, Fill. Whatever the refund gives back,
// an ideal meter holding what the key has kept admits at most its burst.
func (k Keyed) KeptAround(taken core.Result) int64 {
	k.T.Helper()
	kept := k.Fill()
	k.Refund(taken)
	return kept + k.Fill()
}

// RefundMoves are sequences of takes and refunds on a key whose limit is a
// span of 100 units at one a second (GCRA, TokenBucket, LeakyBucket, a
// burst of 100), each leaving a take T whose span an earlier refund moved
// down, and the clock where T holds 1 unit: KeptAround(T) is then at most
// 100 if T's refund gives back only what T still holds.
var RefundMoves = map[string]func(k Keyed, clk *Clock) core.Result{
	// A and B half the burst each; A refunded: B now spans [0, 50 s].
	"earlier-refunded": func(k Keyed, clk *Clock) core.Result {
		a := k.MustTake(50)
		b := k.MustTake(50)
		k.Refund(a)
		clk.Advance(49 * time.Second)
		return b
	},
	// X 50, R 50, X refunded, T 30, R refunded: T spans [0, 30 s], though
	// its span ended before R's when it was taken.
	"later-span": func(k Keyed, clk *Clock) core.Result {
		x := k.MustTake(50)
		r := k.MustTake(50)
		k.Refund(x)
		t := k.MustTake(30)
		k.Refund(r)
		clk.Advance(29 * time.Second)
		return t
	},
	// R 40 at +10 s; the clock back to +0; T 50 queued after R; R
	// refunded: T spans [10 s, 60 s].
	"clock-step-back": func(k Keyed, clk *Clock) core.Result {
		clk.Advance(10 * time.Second)
		r := k.MustTake(40)
		clk.Advance(-10 * time.Second)
		t := k.MustTake(50)
		k.Refund(r)
		clk.Advance(59 * time.Second)
		return t
	},
	// A 50, R 40, A refunded, T 10, R refunded (with a log of one entry a
	// shard, R's refund forgets A's): T spans [0, 10 s].
	"forgotten-between": func(k Keyed, clk *Clock) core.Result {
		a := k.MustTake(50)
		r := k.MustTake(40)
		k.Refund(a)
		t := k.MustTake(10)
		k.Refund(r)
		clk.Advance(9 * time.Second)
		return t
	},
}

// RefundMovePolicies returns the policies RefundMoves are for, by name:
// GCRA, LeakyBucket and TokenBucket of 100 units at one a second, and
// GCRA beside a FixedWindow (a window limit a refund gives back to
// separately).
func RefundMovePolicies() map[string]*core.Policy {
	r := core.Per(100, 100*time.Second)
	return map[string]*core.Policy{
		"GCRA":        core.MustPolicy("p", core.Limit{Name: "l", Algorithm: core.GCRA{Rate: r, Burst: 100}}),
		"LeakyBucket": core.MustPolicy("p", core.Limit{Name: "l", Algorithm: core.LeakyBucket{Rate: r, Capacity: 100, NoDelay: 100}}),
		"TokenBucket": core.MustPolicy("p", core.Limit{Name: "l", Algorithm: core.TokenBucket{Rate: r, Burst: 100}}),
		"GCRA+FixedWindow": core.MustPolicy("p",
			core.Limit{Name: "l", Algorithm: core.GCRA{Rate: r, Burst: 100}},
			core.Limit{Name: "w", Algorithm: core.FixedWindow{Quota: 1 << 20, Window: time.Hour}}),
	}
}
