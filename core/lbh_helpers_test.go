package core_test

// Helpers shared by the LeakyBucket, Hybrid and GCRA property tests. Every
// name starts with lbh so that it cannot clash with other algorithms' tests.

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/require"
)

// The helpers used in loops over thousands of random schedules avoid
// testify and t.Helper, which dominate the run time under -race.

// lbhTake takes cost for key at the clock's time.
func lbhTake(t testing.TB, l *core.Limiter, key string, cost int64) core.Result {
	r, err := l.AllowN(context.Background(), key, cost)
	if err != nil {
		t.Fatalf("AllowN(%q, %d): %v", key, cost, err)
	}
	return r
}

// lbhPeek peeks cost for key at the clock's time.
func lbhPeek(t testing.TB, l *core.Limiter, key string, cost int64) core.Result {
	r, err := l.Peek(context.Background(), key, cost)
	if err != nil {
		t.Fatalf("Peek(%q, %d): %v", key, cost, err)
	}
	return r
}

// lbhRefund refunds taken for key at the clock's time.
func lbhRefund(t testing.TB, l *core.Limiter, key string, taken core.Result) core.Result {
	r, err := l.Refund(context.Background(), key, taken)
	if err != nil {
		t.Fatalf("Refund(%q): %v", key, err)
	}
	return r
}

// lbhView is the part of a Result that the random tests compare.
type lbhView struct {
	Allowed                               bool
	Remaining                             int64
	ResetAfter, RetryAfter, Delay, Window time.Duration
	Limit                                 int64
}

func lbhViewOf(r core.Result) lbhView {
	return lbhView{r.Allowed, r.Remaining, r.ResetAfter, r.RetryAfter, r.Delay, r.Limits()[0].Window, r.Quota}
}

// lbhSingle returns a limiter of the single limit a on clk.
func lbhSingle(t testing.TB, clk core.Clock, a core.Algorithm) *core.Limiter {
	t.Helper()
	return newLimiter(t, clk, core.Limit{Name: "l", Algorithm: a})
}

// lbhRemainingExact reports whether key's remaining is exactly what a take
// could get at the clock's time: a peek of remaining passes (when > 0) and
// a peek of remaining+1 does not.
func lbhRemainingExact(t testing.TB, l *core.Limiter, key string, remaining int64) bool {
	return (remaining == 0 || lbhPeek(t, l, key, remaining).Allowed) && !lbhPeek(t, l, key, remaining+1).Allowed
}

// lbhGen draws a random configuration: the algorithm, its quota (the most
// granted at once) and its time unit (emission interval).
type lbhGen func(rng *rand.Rand) (a core.Algorithm, quota, unit int64)

// lbhGap draws a gap between requests, in units of unit: often none, often
// a fraction of a unit, sometimes several units.
func lbhGap(rng *rand.Rand, unit, quota int64) int64 {
	u := float64(unit)
	switch rng.IntN(5) {
	case 0:
		return 0
	case 1:
		return rng.Int64N(3) // nanoseconds: exercises the boundaries
	case 2:
		return int64(rng.Float64() * u)
	case 3:
		return int64(rng.Float64() * 3 * u)
	default:
		return int64(rng.Float64() * float64(quota+2) * u)
	}
}

// lbhCost draws a cost: mostly 1, sometimes up to quota, rarely beyond it.
func lbhCost(rng *rand.Rand, quota int64) int64 {
	switch rng.IntN(8) {
	case 0, 1, 2, 3:
		return 1
	case 4, 5, 6:
		return 1 + rng.Int64N(quota)
	default:
		return quota + 1 + rng.Int64N(3)
	}
}

// lbhCheckRetryAfter drives random schedules through a Limiter and checks
// every denial's RetryAfter: the same take is allowed at now+RetryAfter and
// denied 1 ms and 1 ns earlier; Never exactly when cost exceeds the quota.
// It checks every Remaining too: exactly what one more take could get.
func lbhCheckRetryAfter(t *testing.T, seed uint64, schedules, steps int, gen lbhGen) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	for n := range schedules {
		a, quota, unit := gen(rng)
		clk := coretest.NewClock(t0)
		l := lbhSingle(t, clk, a)
		now := t0
		var taken []core.Result
		for s := range steps {
			now = now.Add(time.Duration(lbhGap(rng, unit, quota)))
			clk.Set(now)
			if len(taken) > 0 && rng.IntN(6) == 0 {
				i := rng.IntN(len(taken))
				lbhRefund(t, l, "k", taken[i])
				taken = append(taken[:i], taken[i+1:]...)
				continue
			}
			cost := lbhCost(rng, quota)
			r := lbhTake(t, l, "k", cost)
			fail := func(what string) {
				t.Fatalf("schedule %d step %d: %#v cost %d at t0+%v: %+v: %s", n, s, a, cost, now.Sub(t0), lbhViewOf(r), what)
			}
			if r.Remaining < 0 || r.Remaining > quota || !lbhRemainingExact(t, l, "k", r.Remaining) {
				fail("Remaining is not what a take grants now")
			}
			if r.Allowed {
				if r.RetryAfter != 0 {
					fail("allowed with a RetryAfter")
				}
				taken = append(taken, r)
				continue
			}
			if (r.RetryAfter == core.Never) != (cost > quota) {
				fail("RetryAfter is Never iff cost > quota")
			}
			if cost > quota {
				continue
			}
			if r.RetryAfter <= 0 {
				fail("denied with RetryAfter ≤ 0")
			}
			clk.Set(now.Add(r.RetryAfter))
			if !lbhPeek(t, l, "k", cost).Allowed {
				fail("denied at now+RetryAfter")
			}
			clk.Set(now.Add(r.RetryAfter - 1))
			if lbhPeek(t, l, "k", cost).Allowed {
				fail("allowed at now+RetryAfter−1ns")
			}
			if r.RetryAfter > time.Millisecond {
				clk.Set(now.Add(r.RetryAfter - time.Millisecond))
				if lbhPeek(t, l, "k", cost).Allowed {
					fail("allowed at now+RetryAfter−1ms")
				}
			}
			clk.Set(now)
		}
	}
}

// lbhTaken is a take that a random schedule may refund.
type lbhTaken struct{ at, cost int64 }

// lbhOps applies n random takes and refunds to st from now on, refunding
// takes of taken or of its own, and calls check (if not nil) with each
// take's outcome. The first operation is at now itself. It returns the
// newest instant and the takes left.
func lbhOps(rng *rand.Rand, p *core.Probe, st []int64, quota, unit, now int64, n int, taken []lbhTaken, check func(step int, o core.ProbeOutcome)) (int64, []lbhTaken) {
	taken = append([]lbhTaken(nil), taken...)
	for s := range n {
		if s > 0 {
			now += lbhGap(rng, unit, quota)
		}
		if len(taken) > 0 && rng.IntN(5) == 0 {
			i := rng.IntN(len(taken))
			p.Refund(st, now, taken[i].at, taken[i].cost)
			taken = append(taken[:i], taken[i+1:]...)
			continue
		}
		cost := lbhCost(rng, quota)
		o := p.Take(st, now, cost, true)
		if check != nil {
			check(s, o)
		}
		if o.Allowed {
			taken = append(taken, lbhTaken{now, cost})
		}
	}
	return now, taken
}

// lbhRandomState applies random takes and refunds to a fresh state from
// start on and returns the state, the newest instant it has seen and the
// takes not refunded.
func lbhRandomState(rng *rand.Rand, p *core.Probe, quota, unit, start int64, steps int) ([]int64, int64, []lbhTaken) {
	st := make([]int64, p.Words())
	now, taken := lbhOps(rng, p, st, quota, unit, start, steps, nil, nil)
	return st, now, taken
}

// lbhSameFuture checks that states a and b decide the same random sequence
// of takes and refunds from now on (refunding takes of taken too).
func lbhSameFuture(t *testing.T, rng *rand.Rand, p *core.Probe, a, b []int64, quota, unit, now int64, taken []lbhTaken, where ...any) {
	t.Helper()
	a, b = append([]int64(nil), a...), append([]int64(nil), b...)
	seed := rng.Uint64()
	var outs []core.ProbeOutcome
	lbhOps(rand.New(rand.NewPCG(seed, 1)), p, a, quota, unit, now, 12, taken, func(_ int, o core.ProbeOutcome) { outs = append(outs, o) })
	i := 0
	lbhOps(rand.New(rand.NewPCG(seed, 1)), p, b, quota, unit, now, 12, taken, func(s int, o core.ProbeOutcome) {
		if o != outs[i] {
			require.Equal(t, outs[i], o, append(where, "future step", s)...)
		}
		i++
	})
}

// lbhCheckIdleAt checks idleAt on random states: from idleAt on, the state
// decides every sequence of takes and refunds exactly as the zero state;
// one nanosecond before a future idleAt, a take of the whole quota tells
// them apart; and the ResetAfter of a denial (cost beyond the quota) is
// idleAt − now.
func lbhCheckIdleAt(t *testing.T, seed uint64, states int, gen lbhGen) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed^0x1d1e))
	for n := range states {
		a, quota, unit := gen(rng)
		p, err := core.NewProbe(a)
		require.NoError(t, err)
		st, last, taken := lbhRandomState(rng, p, quota, unit, t0.UnixNano(), 1+rng.IntN(30))
		at := p.IdleAt(st)
		zero := make([]int64, p.Words())
		where := []any{"state %d: %#v %v, last %d, idleAt %d", n, a, st, last, at}
		if at > last {
			require.Equal(t, at-last, p.Take(st, last, quota+1, false).ResetAfter, where...)
			require.False(t, p.Take(st, at-1, quota, false).Allowed, where...)
			require.True(t, p.Take(zero, at-1, quota, false).Allowed, where...)
		}
		from := max(at, last)
		for _, d := range []int64{0, 1, lbhGap(rng, unit, quota)} {
			lbhSameFuture(t, rng, p, st, zero, quota, unit, from+d, taken, append(where, "from idleAt +", d)...)
		}
	}
}

// lbhCheckTakeRefund checks on random states that a take followed by the
// refund of the same cost at the same instant restores an equivalent state.
func lbhCheckTakeRefund(t *testing.T, seed uint64, states int, gen lbhGen) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed^0x4ef0))
	for n := range states {
		a, quota, unit := gen(rng)
		p, err := core.NewProbe(a)
		require.NoError(t, err)
		st, now, taken := lbhRandomState(rng, p, quota, unit, t0.UnixNano(), rng.IntN(30))
		now += lbhGap(rng, unit, quota)
		after := append([]int64(nil), st...)
		cost := 1 + rng.Int64N(quota)
		if !p.Take(after, now, cost, true).Allowed {
			continue
		}
		p.Refund(after, now, now, cost)
		lbhSameFuture(t, rng, p, st, after, quota, unit, now, taken, "state %d: %#v %v, took and refunded %d at %d", n, a, st, cost, now)
	}
}

// lbhCheckStaleNow checks on random states that a caller whose now is older
// than the newest instant the state has seen is never granted more than
// the newest now would be.
func lbhCheckStaleNow(t *testing.T, seed uint64, states int, gen lbhGen) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed^0x57a1e))
	for n := range states {
		a, quota, unit := gen(rng)
		p, err := core.NewProbe(a)
		require.NoError(t, err)
		st, last, _ := lbhRandomState(rng, p, quota, unit, t0.UnixNano(), 1+rng.IntN(30))
		for range 4 {
			stale := last - lbhGap(rng, unit, quota)
			cost := lbhCost(rng, quota)
			os, on := p.Take(st, stale, cost, false), p.Take(st, last, cost, false)
			if os.Allowed && !on.Allowed || os.Allowed == on.Allowed && os.Remaining > on.Remaining {
				t.Fatalf("state %d: %#v %v, last %d, stale %d, cost %d: stale %+v, newest %+v", n, a, st, last, stale, cost, os, on)
			}
		}
	}
}
