package core_test

import (
	"cmp"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Property tests of GCRA over random schedules: random rates from 1e-9/s to
// 1e9/s, windows from 1 ns to 365 days, bursts, costs and arrival gaps.

// lbhLate is a late instant: schedules that start there and run for the
// longest spans still end before what a Limiter accepts (2189-03-16).
var lbhLate = time.Date(2150, 1, 1, 0, 0, 0, 0, time.UTC)

type lbhGCRACase struct {
	g     core.GCRA
	burst int64 // the effective burst
	iv    int64 // the emission interval, Period/Count rounded up
	tol   int64 // burst·iv
}

// lbhLogUniform draws from [lo, hi] with a uniform logarithm.
func lbhLogUniform(rng *rand.Rand, lo, hi float64) float64 {
	return math.Exp(math.Log(lo) + rng.Float64()*(math.Log(hi)-math.Log(lo)))
}

// lbhGCRAGen draws a valid GCRA: a rate of RateOf(1e-9..1e9 per second),
// or n per window of 1 ns..365 days, or an everyday one; a default or
// random burst.
func lbhGCRAGen(t testing.TB, rng *rand.Rand) lbhGCRACase {
	for {
		var rate core.Rate
		switch rng.IntN(3) {
		case 0:
			r, err := core.RateOf(lbhLogUniform(rng, 1e-9, 1e9))
			if err != nil {
				t.Fatalf("RateOf in range: %v", err)
			}
			rate = r
		case 1:
			w := time.Duration(lbhLogUniform(rng, 1, float64(365*24*time.Hour)))
			rate = core.Per(int64(lbhLogUniform(rng, 1, 1e6)), w)
		default:
			rate = core.Per(1+rng.Int64N(20), time.Duration(1+rng.Int64N(int64(time.Minute))))
		}
		g := core.GCRA{Rate: rate}
		if rng.IntN(3) > 0 {
			g.Burst = int64(lbhLogUniform(rng, 1, 1000))
		}
		burst := g.Burst
		if burst == 0 {
			burst = rate.Count
		}
		p := int64(rate.Period)
		iv := p/rate.Count + int64(min(1, p%rate.Count))
		err := g.Validate()
		hi, lo := bits.Mul64(uint64(burst), uint64(iv))
		if hi != 0 || lo > 1<<60 {
			if err == nil {
				t.Fatalf("%+v: burst × interval beyond 36 years validated", g)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%+v: %v", g, err)
		}
		return lbhGCRACase{g: g, burst: burst, iv: iv, tol: burst * int64(iv)}
	}
}

// start picks t0 or, when the state's spans fit in int64 from then on, an
// late instant (lbhLate).
func (c lbhGCRACase) start(rng *rand.Rand) int64 {
	if y := lbhLate.UnixNano(); rng.IntN(5) == 0 && y <= c.end()-(1<<40) {
		return y - rng.Int64N(1<<40)
	}
	return t0.UnixNano()
}

// end is the last instant a schedule may reach: past it, now + 2·Burst·I
// would not fit in int64.
func (c lbhGCRACase) end() int64 { return min(math.MaxInt64-2*c.tol, lbhMaxInstant-c.tol) }

// lbhMaxInstant is the latest instant a Limiter decides at (ErrClock past it).
const lbhMaxInstant = int64(math.MaxInt64) - 2<<60

// lbhCeilRate is ⌈T·Count/Period⌉, saturating.
func lbhCeilRate(r core.Rate, T int64) int64 {
	hi, lo := bits.Mul64(uint64(T), uint64(r.Count))
	if hi >= uint64(r.Period) {
		return math.MaxInt64
	}
	q, rem := bits.Div64(hi, lo, uint64(r.Period))
	if rem != 0 {
		q++
	}
	return int64(min(q, math.MaxInt64/4))
}

type lbhAdmission struct{ at, cost int64 }

// lbhCheckIntervals checks that the admissions (sorted by instant) hold at
// most burst + ⌊T/I⌋ ≤ burst + ⌈rate·T⌉ units in every closed interval
// [at_i, at_j] of length T.
func lbhCheckIntervals(t *testing.T, c lbhGCRACase, adm []lbhAdmission, where ...any) {
	for i := range adm {
		var sum int64
		for j := i; j < len(adm); j++ {
			sum += adm[j].cost
			T := adm[j].at - adm[i].at
			if sum > c.burst+T/c.iv || sum > c.burst+lbhCeilRate(c.g.Rate, T) {
				t.Fatalf("%v: %+v: %d units admitted in [%d, %d] (T %v, burst %d, I %d): %v",
					where, c.g, sum, adm[i].at, adm[j].at, time.Duration(T), c.burst, c.iv, adm)
			}
		}
	}
}

// Over 10,000 random schedules of up to 60 steps: exactly burst units pass
// at once from fresh; admissions never exceed burst + ⌈rate·T⌉ in any
// interval T; every denial's RetryAfter is exact; Remaining is exactly what
// one more take could get; a take refunded at once leaves the key exactly
// as it was.
func TestGCRAPropertySchedules(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(2026, 1))
	for n := range 10000 {
		c := lbhGCRAGen(t, rng)
		clk := coretest.NewClock(time.Unix(0, 0))
		l := lbhSingle(t, clk, c.g)
		now, end := c.start(rng), c.end()
		clk.Set(time.Unix(0, now))

		// Exactly burst at once from fresh.
		if c.burst <= 64 {
			for i := range c.burst {
				if !lbhTake(t, l, "fresh", 1).Allowed {
					t.Fatalf("schedule %d: %+v: unit %d of the burst denied", n, c.g, i)
				}
			}
		} else {
			if r := lbhTake(t, l, "fresh", c.burst-1); !r.Allowed || r.Remaining != 1 {
				t.Fatalf("schedule %d: %+v: burst−1 at once: %+v", n, c.g, lbhViewOf(r))
			}
			if !lbhTake(t, l, "fresh", 1).Allowed {
				t.Fatalf("schedule %d: %+v: the burst's last unit denied", n, c.g)
			}
		}
		if r := lbhTake(t, l, "fresh", 1); r.Allowed || r.Remaining != 0 || r.RetryAfter != time.Duration(c.iv) {
			t.Fatalf("schedule %d: %+v: the unit after the burst: %+v", n, c.g, lbhViewOf(r))
		}

		var adm []lbhAdmission
		for s := range 1 + rng.IntN(60) {
			if s > 0 {
				gap := lbhGap(rng, c.iv, c.burst)
				if gap > end-now {
					break
				}
				now += gap
			}
			clk.Set(time.Unix(0, now))
			cost := lbhCost(rng, c.burst)
			refund := rng.IntN(5) == 0
			var before1, before core.Result
			if refund {
				before1, before = lbhPeek(t, l, "k", 1), lbhPeek(t, l, "k", cost)
			}
			r := lbhTake(t, l, "k", cost)
			fail := func(what string) {
				t.Fatalf("schedule %d step %d: %+v cost %d: %+v: %s", n, s, c.g, cost, lbhViewOf(r), what)
			}
			if r.Remaining < 0 || r.Remaining > c.burst || r.ResetAfter < 0 || r.ResetAfter > time.Duration(c.tol) {
				fail("remaining or reset out of range")
			}
			if s%3 == 0 && !lbhRemainingExact(t, l, "k", r.Remaining) {
				fail("Remaining is not what a take grants now")
			}
			if r.Allowed {
				if refund {
					// Refund reports a peek of cost 1.
					after1 := lbhRefund(t, l, "k", r)
					after := lbhPeek(t, l, "k", cost)
					if after1 != before1 || after != before {
						t.Fatalf("schedule %d step %d: %+v: refund of %d: %+v, %+v; before the take %+v, %+v",
							n, s, c.g, cost, lbhViewOf(after1), lbhViewOf(after), lbhViewOf(before1), lbhViewOf(before))
					}
					continue
				}
				adm = append(adm, lbhAdmission{now, cost})
				continue
			}
			if (r.RetryAfter == core.Never) != (cost > c.burst) {
				fail("RetryAfter is Never iff cost > burst")
			}
			if cost > c.burst {
				continue
			}
			ra := int64(r.RetryAfter)
			if ra <= 0 || ra > c.tol {
				fail("RetryAfter out of (0, burst·I]")
			}
			clk.Set(time.Unix(0, now+ra))
			if !lbhPeek(t, l, "k", cost).Allowed {
				fail("denied at now+RetryAfter")
			}
			clk.Set(time.Unix(0, now+ra-1))
			if lbhPeek(t, l, "k", cost).Allowed {
				fail("allowed at now+RetryAfter−1ns")
			}
			if ra > int64(time.Millisecond) {
				clk.Set(time.Unix(0, now+ra-int64(time.Millisecond)))
				if lbhPeek(t, l, "k", cost).Allowed {
					fail("allowed at now+RetryAfter−1ms")
				}
			}
		}
		lbhCheckIntervals(t, c, adm, "schedule", n)
	}
}

// Callers whose now values arrive out of order (the instants of a schedule,
// shuffled) are decided strictly enough that the admissions still hold at
// most burst + ⌊T/I⌋ units in every interval T of their instants, and, for
// unit costs, at most one more than the same instants in order.
func TestGCRAPropertyStaleNow(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(2026, 2))
	for n := range 10000 {
		c := lbhGCRAGen(t, rng)
		clk := coretest.NewClock(time.Unix(0, 0))
		l := lbhSingle(t, clk, c.g)
		now, end := c.start(rng), c.end()
		unit := rng.IntN(2) == 0
		var sched []lbhAdmission
		for s := range 1 + rng.IntN(50) {
			if s > 0 {
				gap := lbhGap(rng, c.iv, c.burst)
				if gap > end-now {
					break
				}
				now += gap
			}
			cost := int64(1)
			if !unit {
				cost = 1 + rng.Int64N(c.burst)
			}
			sched = append(sched, lbhAdmission{now, cost})
		}
		run := func(key string, order []lbhAdmission) (adm []lbhAdmission, units int64) {
			for _, a := range order {
				clk.Set(time.Unix(0, a.at))
				if lbhTake(t, l, key, a.cost).Allowed {
					adm = append(adm, a)
					units += a.cost
				}
			}
			slices.SortFunc(adm, func(a, b lbhAdmission) int { return cmp.Compare(a.at, b.at) })
			return adm, units
		}
		_, inOrder := run("in order", sched)
		shuffled := slices.Clone(sched)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		adm, units := run("shuffled", shuffled)
		lbhCheckIntervals(t, c, adm, "shuffled schedule", n)
		if unit && units > inOrder+1 {
			t.Fatalf("shuffled schedule %d: %+v: %d units admitted, %d in order: %v", n, c.g, units, inOrder, shuffled)
		}
	}
}

// The extremes of the range: the slowest and fastest rates, 1 ns and 365 d
// windows, "5 per 24 h", at t0 and in 2150: no panic, no
// overflow, exact burst, interval and retry.
func TestGCRAExtremes(t *testing.T) {
	t.Parallel()
	rate := func(perSecond float64) core.Rate {
		r, err := core.RateOf(perSecond)
		require.NoError(t, err)
		return r
	}
	day, year := 24*time.Hour, 365*24*time.Hour
	cases := []struct {
		name  string
		g     core.GCRA
		burst int64
		iv    time.Duration
	}{
		{"1e-9 per second", core.GCRA{Rate: rate(1e-9)}, 1, time.Duration(1e18)},
		{"1e9 per second", core.GCRA{Rate: rate(1e9)}, 1, 1},
		{"1e9 per second, burst 1e9", core.GCRA{Rate: rate(1e9), Burst: 1e9}, 1e9, 1},
		{"5 per 24 h, RateOf", core.GCRA{Rate: rate(5.0 / 86400)}, 1, day / 5},
		{"5 per 24 h, Per", core.GCRA{Rate: core.Per(5, day)}, 5, day / 5},
		{"5 per 24 h, PerDay", core.GCRA{Rate: core.PerDay(5)}, 5, day / 5},
		{"1 per ns", core.GCRA{Rate: core.Per(1, 1)}, 1, 1},
		{"1e6 per ns: I rounds up to 1 ns", core.GCRA{Rate: core.Per(1e6, 1)}, 1e6, 1},
		{"1 per 365 d", core.GCRA{Rate: core.Per(1, year)}, 1, year},
		{"1e6 per 365 d", core.GCRA{Rate: core.Per(1e6, year)}, 1e6, year / 1e6},
		{"3 per 365 d, burst 60 (20 years)", core.GCRA{Rate: core.Per(3, year), Burst: 60}, 60, (year + 2) / 3},
	}
	for _, tc := range cases {
		for _, at := range []time.Time{t0, lbhLate} {
			t.Run(tc.name+" at "+at.Format("2006"), func(t *testing.T) {
				require.NoError(t, tc.g.Validate())
				clk := coretest.NewClock(at)
				l := lbhSingle(t, clk, tc.g)
				require.GreaterOrEqual(t, tc.burst, int64(1))
				r := lbhTake(t, l, "k", tc.burst)
				require.True(t, r.Allowed)
				assert.Zero(t, r.Remaining)
				assert.Equal(t, time.Duration(tc.burst)*tc.iv, r.ResetAfter)
				assert.Equal(t, time.Duration(tc.burst)*tc.iv, r.Limits()[0].Window)
				r = lbhTake(t, l, "k", 1)
				require.False(t, r.Allowed)
				assert.Equal(t, tc.iv, r.RetryAfter)
				assert.Equal(t, time.Duration(tc.burst)*tc.iv, r.ResetAfter)
				assert.Equal(t, core.Never, lbhTake(t, l, "k", tc.burst+1).RetryAfter)
				assert.Equal(t, core.Never, lbhTake(t, l, "k", math.MaxInt64).RetryAfter)
				// One unit per interval after that, for a while (as long as
				// the state's instants fit in int64).
				tol := tc.burst * int64(tc.iv)
				for i := range int64(3) {
					if at.UnixNano() > min(math.MaxInt64-tol, lbhMaxInstant)-(i+1)*int64(tc.iv) {
						break
					}
					clk.Set(at.Add(time.Duration(i+1) * tc.iv))
					r = lbhTake(t, l, "k", 1)
					require.True(t, r.Allowed, "step %d", i)
					require.Equal(t, time.Duration(tc.burst)*tc.iv, r.ResetAfter, "step %d", i)
					r = lbhTake(t, l, "k", 1)
					require.False(t, r.Allowed, "step %d", i)
					require.Equal(t, tc.iv, r.RetryAfter, "step %d", i)
				}
				// Fully idle again once the last TAT has passed.
				if last := r.ResetAfter; at.UnixNano() <= math.MaxInt64-2*tol-int64(3*tc.iv) {
					clk.Advance(last)
					r = lbhTake(t, l, "k", tc.burst)
					require.True(t, r.Allowed)
				}
			})
		}
	}
	// Beyond the range: validation refuses, nothing panics.
	for _, g := range []core.GCRA{
		{Rate: core.Per(math.MaxInt64, 1)},
		{Rate: core.Per(1, time.Duration(math.MaxInt64))},
		{Rate: core.Per(1, year), Burst: 74},
		{Rate: rate(1e-9), Burst: math.MaxInt64},
	} {
		assert.ErrorIs(t, g.Validate(), core.ErrInvalidConfig, "%+v", g)
	}
	for _, ps := range []float64{0, -1, math.NaN(), math.Inf(1), math.Inf(-1), 1e-10} {
		_, err := core.RateOf(ps)
		assert.ErrorIs(t, err, core.ErrInvalidConfig, "RateOf(%v)", ps)
	}
}
