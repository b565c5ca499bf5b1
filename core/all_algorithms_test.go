package core_test

import (
	"context"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// allAlgorithms returns one configuration of every algorithm with a quota
// of q per window w (where the algorithm has those notions).
func allAlgorithms(q int64, w time.Duration) []core.Algorithm {
	return []core.Algorithm{
		core.GCRA{Rate: core.Per(q, w)},
		core.TokenBucket{Rate: core.Per(q, w)},
		core.LeakyBucket{Rate: core.Per(q, w), Capacity: q, NoDelay: q / 2},
		core.FixedWindow{Quota: q, Window: w},
		core.FixedWindow{Quota: q, Window: w, Anchored: true},
		core.SlidingLog{Quota: q, Window: w},
		core.SlidingLog{Quota: q, Window: w, CountRejected: true},
		core.SlidingWindow{Quota: q, Window: w},
		core.Hybrid{Quota: q, Window: w},
		core.RollingWindow{Quota: q, Window: w, Period: w / 4},
		core.WarmUp{Rate: core.Per(q, w), WarmUp: w},
		core.Backoff{Free: q, Window: w, Base: w / 4, Max: w, Forgive: 2 * w},
	}
}

// Callers whose clock readings arrive out of order (goroutines racing
// between reading the clock and reaching the store) are decided as if they
// came at the latest instant seen, never earlier: they never get more
// admissions than the same arrivals with each reading raised to the
// running maximum, plus one; and for the rate algorithms never more than
// the ideal burst + ⌈rate·span⌉, plus one.
func TestOutOfOrderNowNeverMintsCapacity(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	ctx := context.Background()
	schedules := 300
	if testing.Short() {
		schedules = 50
	}
	const q, w = 8, 4 * time.Second
	for _, a := range allAlgorithms(q, w) {
		for s := 0; s < schedules; s++ {
			n := 20 + rng.IntN(60)
			at := make([]time.Duration, n)
			for i := range at {
				at[i] = time.Duration(rng.Int64N(int64(12 * time.Second)))
			}
			sort.Slice(at, func(i, j int) bool { return at[i] < at[j] })
			racing := append([]time.Duration(nil), at...)
			// Reorder within small groups, as racing callers do.
			for i := 0; i+1 < n; i++ {
				j := i + rng.IntN(min(4, n-i))
				racing[i], racing[j] = racing[j], racing[i]
			}
			clamped := append([]time.Duration(nil), racing...)
			for i := 1; i < n; i++ {
				clamped[i] = max(clamped[i], clamped[i-1])
			}
			admitted := func(order []time.Duration) int64 {
				clk := coretest.NewClock(t0)
				l := newLimiter(t, clk, core.Limit{Name: "x", Algorithm: a})
				k := int64(0)
				for _, d := range order {
					clk.Set(t0.Add(d))
					r, err := l.Allow(ctx, "k")
					require.NoError(t, err)
					if r.Allowed {
						k++
					}
				}
				return k
			}
			got := admitted(racing)
			require.LessOrEqual(t, got, admitted(clamped)+1, "%T schedule %d", a, s)
			switch a.(type) {
			case core.GCRA, core.TokenBucket, core.LeakyBucket:
				span := at[n-1] - at[0]
				ideal := q + (int64(span)*q+int64(w)-1)/int64(w)
				require.LessOrEqual(t, got, ideal+1, "%T schedule %d", a, s)
			}
		}
	}
}

// FuzzOperations applies random operation sequences to every algorithm:
// nothing panics, every result is within its bounds, no interval of one
// window ever admits more than twice the quota (plus one unit of rounding;
// Backoff: its documented bound), and a take of cost c never passes where c
// takes of cost 1 at the same instant would not all pass (WarmUp excepted,
// as documented).
func FuzzOperations(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{255, 0, 255, 0, 128, 64, 32, 16, 8, 4, 2, 1})
	f.Add([]byte("hammer the same key with growing costs and refunds"))
	const q, w = 5, 4 * time.Second
	f.Fuzz(func(t *testing.T, ops []byte) {
		ctx := context.Background()
		for _, a := range allAlgorithms(q, w) {
			clk := coretest.NewClock(t0)
			l := newLimiter(t, clk, core.Limit{Name: "x", Algorithm: a})
			var admitted []time.Time
			var last core.Result
			// The same operations on the bare step, to compare a cost
			// with its units on copies of the state.
			p, err := core.NewProbe(a)
			require.NoError(t, err)
			st := make([]int64, p.Words())
			_, warm := a.(core.WarmUp)
			var pAt, pCost int64 = -1, 0
			for i := 0; i+1 < len(ops) && i < 400; i += 2 {
				op, arg := ops[i], ops[i+1]
				switch op % 8 {
				case 0, 1, 2, 3:
					clk.Advance(time.Duration(arg) * 25 * time.Millisecond)
				case 4:
					clk.Set(clk.Now().Add(-time.Duration(arg) * time.Millisecond)) // a stale reading
				case 5:
					r, err := l.Peek(ctx, "k", 1+int64(arg%8))
					require.NoError(t, err)
					check(t, a, r)
				case 6:
					if last.Taken() {
						_, err := l.Refund(ctx, "k", last)
						require.NoError(t, err)
						admitted = admitted[:len(admitted)-int(last.Cost)]
						last = core.Result{}
					}
					if pAt >= 0 {
						p.Refund(st, clk.Now().UnixNano(), pAt, pCost)
						pAt = -1
					}
					continue
				}
				cost := 1 + int64(arg%3)
				now := clk.Now().UnixNano()
				if !warm && p.Take(append([]int64(nil), st...), now, cost, false).Allowed {
					units := append([]int64(nil), st...)
					for u := int64(0); u < cost; u++ {
						require.True(t, p.Take(units, now, 1, true).Allowed, "%T: cost %d passes, its unit %d would not", a, cost, u+1)
					}
				}
				if p.Take(st, now, cost, true).Allowed {
					pAt, pCost = now, cost
				} else {
					p.Denied(st, now, cost)
				}
				r, err := l.AllowN(ctx, "k", cost)
				require.NoError(t, err)
				check(t, a, r)
				if r.Allowed {
					for c := int64(0); c < cost; c++ {
						admitted = append(admitted, clk.Now())
					}
					last = r
				}
			}
			sort.Slice(admitted, func(i, j int) bool { return admitted[i].Before(admitted[j]) })
			bound := 2*q + 1
			if b, ok := a.(core.Backoff); ok {
				// Its documented bound (Forgive ≥ Window): the Free+1 of
				// two windows, and one after each lock ending in between.
				bound = 2*(q+1) + 1 + backoffLocksIn(b, w)
			}
			for i := range admitted {
				j := i
				for j < len(admitted) && admitted[j].Sub(admitted[i]) < w {
					j++
				}
				require.LessOrEqual(t, j-i, bound, "%T: %d admitted within %v", a, j-i, w)
			}
		}
	})
}

// backoffLocksIn returns how many successive lockouts of b, from the first
// (Base, doubling, capped at Max), fit in d together.
func backoffLocksIn(b core.Backoff, d time.Duration) int {
	n, sum, lock := 0, time.Duration(0), b.Base
	for sum+lock <= d {
		sum += lock
		n++
		lock = min(2*lock, b.Max)
	}
	return n
}

func check(t *testing.T, a core.Algorithm, r core.Result) {
	t.Helper()
	require.GreaterOrEqual(t, r.Remaining, int64(0), "%T", a)
	require.LessOrEqual(t, r.Remaining, r.Quota, "%T", a)
	require.GreaterOrEqual(t, r.ResetAfter, time.Duration(0), "%T", a)
	require.GreaterOrEqual(t, r.RetryAfter, time.Duration(0), "%T", a)
	require.GreaterOrEqual(t, r.Delay, time.Duration(0), "%T", a)
	if r.Allowed {
		require.Zero(t, r.RetryAfter, "%T", a)
	} else {
		require.Positive(t, r.RetryAfter, "%T", a)
	}
}

// Every algorithm at the edges of the range: windows of 1 ns and 365 days,
// the slowest and fastest rates, at 1970 and in 2187. Nothing panics,
// every result is within bounds, the first unit passes and a cost beyond
// the quota is told Never.
func TestEveryAlgorithmAtTheEdges(t *testing.T) {
	t.Parallel()
	slow, err := core.RateOf(1e-9)
	require.NoError(t, err)
	fast, err := core.RateOf(1e9)
	require.NoError(t, err)
	year := 365 * 24 * time.Hour
	var algs []core.Algorithm
	for _, w := range []time.Duration{time.Nanosecond, year} {
		algs = append(algs, allAlgorithms(1, w)...)
		algs = append(algs, allAlgorithms(1e6, w)...)
	}
	for _, r := range []core.Rate{slow, fast, core.PerDay(5), core.Per(5, 24*time.Hour)} {
		algs = append(algs, core.GCRA{Rate: r}, core.TokenBucket{Rate: r}, core.LeakyBucket{Rate: r})
	}
	ctx := context.Background()
	for _, a := range algs {
		if err := a.Validate(); err != nil {
			// Some combinations exceed the 36-year span: refused, cleanly.
			require.ErrorIs(t, err, core.ErrInvalidConfig, "%T%+v", a, a)
			continue
		}
		for _, at := range []time.Time{time.Unix(0, 1), time.Date(2187, 1, 1, 0, 0, 0, 0, time.UTC)} {
			clk := coretest.NewClock(at)
			l := newLimiter(t, clk, core.Limit{Name: "x", Algorithm: a})
			r, err := l.Allow(ctx, "k")
			require.NoError(t, err)
			require.True(t, r.Allowed, "%T%+v at %v: the first unit passes", a, a, at)
			require.GreaterOrEqual(t, r.Quota, int64(1), "%T%+v: quota ≥ 1", a, a)
			check(t, a, r)
			r, err = l.AllowN(ctx, "k", 1<<62)
			require.NoError(t, err)
			require.False(t, r.Allowed)
			require.Equal(t, core.Never, r.RetryAfter, "%T%+v", a, a)
			for i := 0; i < 5; i++ {
				clk.Advance(time.Duration(i) * time.Hour)
				r, err = l.AllowN(ctx, "k", 1+int64(i))
				require.NoError(t, err)
				check(t, a, r)
			}
		}
	}
	_, err = core.RateOf(2e9)
	assert.ErrorIs(t, err, core.ErrInvalidConfig)
}
