package core_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func wuLimiter(t testing.TB, clk core.Clock, w core.WarmUp) *core.Limiter {
	t.Helper()
	return newLimiter(t, clk, core.Limit{Name: "warm", Algorithm: w})
}

// wuRandom returns a random valid WarmUp: whole and fractional rates,
// warm-ups from 1 ms to 20 s, cold factors from 1 to 10.
func wuRandom(rng *rand.Rand) core.WarmUp {
	var r core.Rate
	switch rng.IntN(3) {
	case 0:
		r = core.PerSecond(1 + rng.Int64N(100))
	case 1:
		r = core.Per(1+rng.Int64N(20), time.Duration(1+rng.Int64N(5000))*time.Millisecond+time.Duration(rng.Int64N(1e6)))
	default:
		var err error
		r, err = core.RateOf(0.2 + rng.Float64()*200)
		if err != nil {
			panic(err)
		}
	}
	w := core.WarmUp{Rate: r, WarmUp: time.Millisecond + time.Duration(rng.Int64N(int64(20*time.Second)))}
	switch rng.IntN(5) {
	case 0:
		w.ColdFactor = 0
	case 1:
		w.ColdFactor = 1
	case 2:
		w.ColdFactor = 3
	default:
		w.ColdFactor = 1 + rng.Float64()*9
	}
	return w
}

// wuStep returns a random clock step: often zero, mostly about a stable
// interval, sometimes backwards, sometimes a long idle.
func wuStep(rng *rand.Rand, w core.WarmUp) time.Duration {
	iv := int64(w.Rate.Period) / w.Rate.Count
	switch k := rng.IntN(20); {
	case k < 3:
		return 0
	case k < 4:
		return -time.Duration(rng.Int64N(iv))
	case k < 5:
		return time.Duration(rng.Int64N(2*int64(w.WarmUp) + 1))
	default:
		return time.Duration(rng.Int64N(4 * iv))
	}
}

func wuCost(rng *rand.Rand, w core.WarmUp) int64 {
	if rng.IntN(4) == 0 {
		return 1 + rng.Int64N(w.Rate.Count+1)
	}
	return 1
}

// wuRandomState drives key k with a random schedule and returns the final
// instant.
func wuRandomState(rng *rand.Rand, l *core.Limiter, clk *coretest.Clock, w core.WarmUp, k string, steps int) time.Time {
	now := clk.Now()
	for range steps {
		now = now.Add(wuStep(rng, w))
		clk.Set(now)
		r, _ := l.AllowN(tbCtx, k, wuCost(rng, w))
		if r.Allowed && rng.IntN(10) == 0 {
			_, _ = l.Refund(tbCtx, k, r)
		}
	}
	return now
}

// wuGreedy takes n units, each at the first instant the key admits it, and
// returns the gaps between admissions (the first one's from now).
func wuGreedy(t *testing.T, l *core.Limiter, clk *coretest.Clock, key string, n int) []time.Duration {
	t.Helper()
	var gaps []time.Duration
	var gap time.Duration
	// Each admission comes at the instant a denial's RetryAfter names (or
	// a rounding step later): a bound of 100 denials per admission only
	// stops a wrong RetryAfter from looping forever.
	for tries := 0; len(gaps) < n; tries++ {
		require.Less(t, tries, 100*(n+1), "%d of %d admissions: the key keeps refusing at the instants its RetryAfter names", len(gaps), n)
		r, err := l.Allow(tbCtx, key)
		require.NoError(t, err)
		if r.Allowed {
			gaps = append(gaps, gap)
			gap = 0
			continue
		}
		require.Positive(t, r.RetryAfter)
		require.NotEqual(t, core.Never, r.RetryAfter)
		clk.Advance(r.RetryAfter)
		gap += r.RetryAfter
	}
	return gaps
}

// At 1/s with a 4 s warm-up and the cold factor 3: stable interval 1 s,
// cold interval 3 s, thresholdPermits 0.5·4/1 = 2, maxPermits 2 + 2·4/(1+3)
// = 4, slope (3−1)/(4−2) = 1 s per permit, one permit regained per 4/4 =
// 1 s of idleness. From cold (4 stored): the 1st unit costs the trapezoid
// between 3 and 4 permits, (3+2)/2 = 2.5 s; the 2nd between 2 and 3,
// (2+1)/2 = 1.5 s; then 1 s each. 2.5 + 1.5 = 4 s: the warm-up.
func TestWarmUpColdStartByHand(t *testing.T) {
	t.Parallel()
	w := core.WarmUp{Rate: core.PerSecond(1), WarmUp: 4 * time.Second}
	s := time.Second
	clk := coretest.NewClock(t0)
	l := wuLimiter(t, clk, w)
	steps := []struct {
		at        time.Duration
		cost      int64
		allowed   bool
		remaining int64
		reset     time.Duration
		retry     time.Duration
	}{
		// 4 stored → 3, next free at 2.5 s; cold again at 2.5 + 1 s.
		{0, 1, true, 0, 3500 * time.Millisecond, 0},
		{1 * s, 1, false, 0, 2500 * time.Millisecond, 1500 * time.Millisecond},
		{2500*time.Millisecond - 1, 1, false, 0, 1000*time.Millisecond + 1, 1},
		// 3 → 2, next free at 4 s; cold at 4 + 2 s.
		{2500 * time.Millisecond, 1, true, 0, 3500 * time.Millisecond, 0},
		// 2 → 1 at the stable interval; cold at 5 + 3 s.
		{4 * s, 1, true, 0, 4 * s, 0},
		// 1 → 0; cold at 6 + 4 s.
		{5 * s, 1, true, 0, 5 * s, 0},
		// None stored: fresh permits at 1 s.
		{6 * s, 1, true, 0, 5 * s, 0},
		{7 * s, 2, false, 1, 4 * s, core.Never}, // over the quota of 1; a unit would pass
		// 2.5 s idle after 7 s: 2.5 stored, 0.5 above the threshold:
		// 0.5·(1.5+1)/2 + 0.5·1 = 1.125 s; 1.5 left.
		{9500 * time.Millisecond, 1, true, 0, 1125*time.Millisecond + 2500*time.Millisecond, 0},
		// 1.5 stored, all under the threshold: 1 s.
		{10625 * time.Millisecond, 1, true, 0, 4500 * time.Millisecond, 0},
		// Idle ≥ 4 s: cold again, 2.5 s.
		{20 * s, 1, true, 0, 3500 * time.Millisecond, 0},
	}
	for _, st := range steps {
		clk.Set(t0.Add(st.at))
		r, err := l.AllowN(tbCtx, "k", st.cost)
		require.NoError(t, err)
		assert.Equal(t, st.allowed, r.Allowed, "at %v", st.at)
		assert.Equal(t, st.remaining, r.Remaining, "at %v", st.at)
		assert.Equal(t, st.reset, r.ResetAfter, "at %v", st.at)
		assert.Equal(t, st.retry, r.RetryAfter, "at %v", st.at)
		assert.Equal(t, int64(1), r.Quota)
		assert.Equal(t, time.Second, r.Limits()[0].Window)
	}

	// The spacing from cold, taken greedily.
	clk = coretest.NewClock(t0)
	l = wuLimiter(t, clk, w)
	assert.Equal(t, []time.Duration{0, 2500 * time.Millisecond, 1500 * time.Millisecond, s, s, s, s},
		wuGreedy(t, l, clk, "k", 7))

	// Two units from cold: the whole trapezoid, the warm-up.
	clk = coretest.NewClock(t0)
	l = newLimiter(t, clk, core.Limit{Algorithm: core.WarmUp{Rate: core.PerSecond(2), WarmUp: 2 * time.Second}})
	r, err := l.AllowN(tbCtx, "k", 2) // 0.5 s stable, 1.5 s cold, 2 + 2 permits
	require.NoError(t, err)
	require.True(t, r.Allowed)
	clk.Set(t0.Add(2*time.Second - 1))
	r, err = l.Allow(tbCtx, "k")
	require.NoError(t, err)
	assert.False(t, r.Allowed)
	assert.Equal(t, time.Duration(1), r.RetryAfter)
}

// TestWarmUpBusyKeyRunsAtStableRate: from cold, a saturated key's spacing
// starts near the cold interval, never grows, and falls to exactly the
// stable interval once the warm-up period has passed; a key polled every
// millisecond also settles at the stable rate.
func TestWarmUpBusyKeyRunsAtStableRate(t *testing.T) {
	t.Parallel()
	// 10/s: stable 100 ms, cold 300 ms, threshold 10, maxPermits 20.
	w := core.WarmUp{Rate: core.PerSecond(10), WarmUp: 2 * time.Second}
	stable, cold := 100*time.Millisecond, 300*time.Millisecond

	clk := coretest.NewClock(t0)
	l := wuLimiter(t, clk, w)
	gaps := wuGreedy(t, l, clk, "k", 60)[1:]
	assert.Greater(t, gaps[0], (stable+cold)/2)
	assert.LessOrEqual(t, gaps[0], cold)
	assert.Equal(t, 290*time.Millisecond, gaps[0], "the permit between 19 and 20: (300+280)/2 ms")
	var elapsed time.Duration
	for i, g := range gaps {
		if i > 0 {
			assert.LessOrEqual(t, g, gaps[i-1], "gap %d", i)
		}
		if elapsed >= w.WarmUp {
			assert.Equal(t, stable, g, "gap %d after %v", i, elapsed)
		}
		elapsed += g
	}
	assert.Equal(t, w.WarmUp, gaps[0]+gaps[1]+gaps[2]+gaps[3]+gaps[4]+gaps[5]+gaps[6]+gaps[7]+gaps[8]+gaps[9],
		"the first 10 units (maxPermits down to the threshold) take the warm-up")

	// Polled every millisecond for 10 s.
	clk = coretest.NewClock(t0)
	l = wuLimiter(t, clk, w)
	var times []time.Duration
	for ms := range 10_000 {
		clk.Set(t0.Add(time.Duration(ms) * time.Millisecond))
		r, err := l.Allow(tbCtx, "k")
		require.NoError(t, err)
		if r.Allowed {
			times = append(times, time.Duration(ms)*time.Millisecond)
		}
	}
	late := 0
	for i := 1; i < len(times); i++ {
		if times[i] >= 5*time.Second {
			late++
			assert.Equal(t, stable, times[i]-times[i-1], "at %v", times[i])
		}
	}
	assert.Equal(t, 50, late)
}

// TestWarmUpRetryAfterExact: a denied request passes at now+RetryAfter and
// neither 1 ns nor 1 ms earlier.
func TestWarmUpRetryAfterExact(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(11, 12))
	checked := 0
	for range 3000 {
		w := wuRandom(rng)
		clk := coretest.NewClock(t0)
		l := wuLimiter(t, clk, w)
		now := wuRandomState(rng, l, clk, w, "k", 1+rng.IntN(30))
		cost := 1 + rng.Int64N(w.Rate.Count)
		r, err := l.Peek(tbCtx, "k", cost)
		require.NoError(t, err)
		if r.Allowed {
			continue
		}
		checked++
		where := fmt.Sprintf("%+v at +%v: RetryAfter %v", w, now.Sub(t0), r.RetryAfter)
		require.Positive(t, r.RetryAfter, where)
		for _, early := range []time.Duration{time.Nanosecond, time.Millisecond} {
			clk.Set(now.Add(r.RetryAfter - early))
			p, err := l.Peek(tbCtx, "k", cost)
			require.NoError(t, err)
			require.False(t, p.Allowed, "%s: passes %v early", where, early)
		}
		clk.Set(now.Add(r.RetryAfter))
		p, err := l.AllowN(tbCtx, "k", cost)
		require.NoError(t, err)
		require.True(t, p.Allowed, where)
	}
	assert.Greater(t, checked, 1000)

	clk := coretest.NewClock(t0)
	l := wuLimiter(t, clk, core.WarmUp{Rate: core.PerMinute(10), WarmUp: time.Minute})
	r, err := l.AllowN(tbCtx, "k", 11)
	require.NoError(t, err)
	assert.False(t, r.Allowed)
	assert.Equal(t, core.Never, r.RetryAfter)
	assert.Equal(t, int64(1), r.Remaining, "a unit would pass")
	r, err = l.AllowN(tbCtx, "k", 10)
	require.NoError(t, err)
	assert.True(t, r.Allowed, "up to the rate's limit at once")
	assert.Zero(t, r.Remaining)
}

// TestWarmUpRefund: a refund at the take's instant restores the key
// exactly; a later one gives back at most the outstanding wait, and after
// the wait only the stored permits (the key cools).
func TestWarmUpRefund(t *testing.T) {
	t.Parallel()
	t.Run("same instant", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(13, 14))
		exact, slower := 0, 0
		for range 2000 {
			w := wuRandom(rng)
			clk := coretest.NewClock(t0)
			l := wuLimiter(t, clk, w)
			// Key and twin live the same history...
			now := clk.Now()
			for range 1 + rng.IntN(20) {
				now = now.Add(wuStep(rng, w))
				clk.Set(now)
				cost, refund := wuCost(rng, w), rng.IntN(10) == 0
				for _, k := range []string{"k", "twin"} {
					r, err := l.AllowN(tbCtx, k, cost)
					require.NoError(t, err)
					if r.Allowed && refund {
						_, err = l.Refund(tbCtx, k, r)
						require.NoError(t, err)
					}
				}
			}
			// ...but the key takes and refunds once more, mostly when free.
			cost := 1 + rng.Int64N(w.Rate.Count)
			if p, err := l.Peek(tbCtx, "k", cost); err == nil && !p.Allowed && rng.IntN(10) > 0 {
				now = now.Add(p.RetryAfter + time.Duration(rng.IntN(2)*rng.IntN(int(w.Rate.Period))))
				clk.Set(now)
			}
			r, err := l.AllowN(tbCtx, "k", cost)
			require.NoError(t, err)
			if !r.Allowed {
				continue
			}
			_, err = l.Refund(tbCtx, "k", r)
			require.NoError(t, err)
			want, err := l.Peek(tbCtx, "twin", cost)
			require.NoError(t, err)
			got, err := l.Peek(tbCtx, "k", cost)
			require.NoError(t, err)
			if core.Anonymous(got) == core.Anonymous(want) {
				exact++
				continue
			}
			// The take emptied the store: the key is slower than its twin
			// from now on, never faster.
			slower++
			a := wuGreedy(t, l, clk, "k", 10)
			clk.Set(now)
			b := wuGreedy(t, l, clk, "twin", 10)
			var at, bt time.Duration
			for i := range a {
				at, bt = at+a[i], bt+b[i]
				require.GreaterOrEqual(t, at, bt, "%+v at +%v: take+refund %d: admission %d", w, now.Sub(t0), cost, i)
			}
		}
		t.Logf("%d exact, %d slower", exact, slower)
		assert.Greater(t, exact, 1000)
	})
	w := core.WarmUp{Rate: core.PerSecond(1), WarmUp: 4 * time.Second}
	t.Run("while waiting", func(t *testing.T) {
		clk := coretest.NewClock(t0)
		l := wuLimiter(t, clk, w)
		r, err := l.Allow(tbCtx, "k") // next free at 2.5 s, 3 stored
		require.NoError(t, err)
		require.True(t, r.Allowed)
		clk.Set(t0.Add(time.Second))
		_, err = l.Refund(tbCtx, "k", r) // 4 stored, the 2.5 s back: free now
		require.NoError(t, err)
		assert.Equal(t, []time.Duration{0, 2500 * time.Millisecond, 1500 * time.Millisecond}, wuGreedy(t, l, clk, "k", 3))
	})
	t.Run("while waiting, drained", func(t *testing.T) {
		clk := coretest.NewClock(t0)
		l := wuLimiter(t, clk, w)
		wuGreedy(t, l, clk, "k", 4) // at 5 s: 0 stored, next free at 6 s
		clk.Advance(time.Second)
		r, err := l.Allow(tbCtx, "k") // at 6 s: next free at 7 s
		require.NoError(t, err)
		require.True(t, r.Allowed)
		r2, err := l.Allow(tbCtx, "k")
		require.NoError(t, err)
		require.Equal(t, time.Second, r2.RetryAfter)
		clk.Advance(500 * time.Millisecond)
		_, err = l.Refund(tbCtx, "k", r) // 1 stored; the 1 s back, but not before now
		require.NoError(t, err)
		p, err := l.Peek(tbCtx, "k", 1)
		require.NoError(t, err)
		assert.True(t, p.Allowed)
		assert.Equal(t, 5*time.Second, p.ResetAfter, "the peek's unit from the 1 stored: free at 7.5 s, then 4 s to cool")
	})
	t.Run("after the wait", func(t *testing.T) {
		clk := coretest.NewClock(t0)
		l := wuLimiter(t, clk, w)
		gaps := wuGreedy(t, l, clk, "k", 4) // at 5 s: 0 stored, next free at 6 s
		require.Equal(t, []time.Duration{0, 2500 * time.Millisecond, 1500 * time.Millisecond, time.Second}, gaps)
		clk.Set(t0.Add(6 * time.Second))
		r, err := l.Allow(tbCtx, "k") // 0 stored, next free at 7 s
		require.NoError(t, err)
		require.True(t, r.Allowed)
		clk.Set(t0.Add(7500 * time.Millisecond)) // 0.5 regained
		p, err := l.Peek(tbCtx, "k", 1)
		require.NoError(t, err)
		require.True(t, p.Allowed)
		assert.Equal(t, 5*time.Second, p.ResetAfter, "free at 8.5 s with 0 stored, then 4 s to cool")
		// The take's wait ended at 7 s: it holds nothing any more, and its
		// refund gives nothing back.
		_, err = l.Refund(tbCtx, "k", r)
		require.NoError(t, err)
		p, err = l.Peek(tbCtx, "k", 1)
		require.NoError(t, err)
		require.True(t, p.Allowed)
		assert.Equal(t, 5*time.Second, p.ResetAfter, "unchanged")
	})
}

func TestWarmUpValidate(t *testing.T) {
	t.Parallel()
	ok := core.WarmUp{Rate: core.PerSecond(10), WarmUp: time.Second}
	with := func(f func(*core.WarmUp)) core.WarmUp { w := ok; f(&w); return w }
	cases := []struct {
		name string
		w    core.WarmUp
		ok   bool
	}{
		{"default cold factor", ok, true},
		{"cold factor 1", with(func(w *core.WarmUp) { w.ColdFactor = 1 }), true},
		{"cold factor 7.5", with(func(w *core.WarmUp) { w.ColdFactor = 7.5 }), true},
		{"fractional rate", with(func(w *core.WarmUp) { w.Rate = core.Per(3, 7*time.Second) }), true},
		{"zero rate", with(func(w *core.WarmUp) { w.Rate = core.Rate{} }), false},
		{"negative limit", with(func(w *core.WarmUp) { w.Rate.Count = -1 }), false},
		{"zero period", with(func(w *core.WarmUp) { w.Rate.Period = 0 }), false},
		{"period over 73 years", with(func(w *core.WarmUp) { w.Rate.Period = 1<<61 + 1 }), false},
		{"zero warm-up", with(func(w *core.WarmUp) { w.WarmUp = 0 }), false},
		{"negative warm-up", with(func(w *core.WarmUp) { w.WarmUp = -time.Second }), false},
		{"warm-up over 73 years", with(func(w *core.WarmUp) { w.WarmUp = 1<<61 + 1 }), false},
		{"cold factor below 1", with(func(w *core.WarmUp) { w.ColdFactor = 0.5 }), false},
		{"negative cold factor", with(func(w *core.WarmUp) { w.ColdFactor = -3 }), false},
		{"NaN cold factor", with(func(w *core.WarmUp) { w.ColdFactor = math.NaN() }), false},
		{"infinite cold factor", with(func(w *core.WarmUp) { w.ColdFactor = math.Inf(1) }), false},
		{"cold period overflows", with(func(w *core.WarmUp) { w.Rate = core.PerDay(1); w.ColdFactor = 1e6 }), false},
		{"too many permits", with(func(w *core.WarmUp) { w.Rate = core.Rate{Count: math.MaxInt64, Period: 1}; w.WarmUp = time.Hour }), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkValidation(t, c.w, c.ok) })
	}
}

// TestWarmUpIdleAtExact: from the instant a key is cold again with nothing
// outstanding (ResetAfter of a peek it denies for its cost, which takes
// nothing; the instant the store may forget the key), it decides exactly as
// a key never seen, for any continuation; one nanosecond earlier it is not
// there yet.
func TestWarmUpIdleAtExact(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(15, 16))
	for i := range 3000 {
		w := wuRandom(rng)
		clk := coretest.NewClock(t0)
		l := wuLimiter(t, clk, w)
		now := wuRandomState(rng, l, clk, w, "k", 1+rng.IntN(30))
		p, err := l.Peek(tbCtx, "k", w.Rate.Count+1)
		require.NoError(t, err)
		require.False(t, p.Allowed)
		idle := now.Add(p.ResetAfter)
		where := fmt.Sprintf("state %d: %+v: idle at +%v", i, w, idle.Sub(t0))
		if p.ResetAfter > time.Nanosecond {
			clk.Set(idle.Add(-1))
			q, err := l.Peek(tbCtx, "k", w.Rate.Count+1)
			require.NoError(t, err)
			require.Equal(t, time.Nanosecond, q.ResetAfter, where)
		}
		at := idle.Add(time.Duration(rng.Int64N(3)) * time.Duration(rng.Int64N(int64(w.Rate.Period)+1)))
		fresh := fmt.Sprint("fresh", i)
		for step := range 1 + rng.IntN(10) {
			clk.Set(at)
			cost := wuCost(rng, w)
			var a, f core.Result
			var errA, errF error
			if rng.IntN(4) == 0 {
				a, errA = l.Peek(tbCtx, "k", cost)
				f, errF = l.Peek(tbCtx, fresh, cost)
			} else {
				a, errA = l.AllowN(tbCtx, "k", cost)
				f, errF = l.AllowN(tbCtx, fresh, cost)
			}
			require.NoError(t, errA)
			require.NoError(t, errF)
			require.Equal(t, core.Anonymous(f), core.Anonymous(a), "%s: step %d at +%v cost %d", where, step, at.Sub(t0), cost)
			at = at.Add(max(0, wuStep(rng, w)))
		}
	}
}
