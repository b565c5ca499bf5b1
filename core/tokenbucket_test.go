package core_test

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"
)

var tbCtx = context.Background()

// tbRandomBucket returns a random valid TokenBucket: whole and fractional
// rates per second, minute and odd periods, one in eleven faster than one
// per ns, bursts 1–1000 (or 0, the rate's limit).
func tbRandomBucket(rng *rand.Rand) core.TokenBucket {
	var r core.Rate
	switch rng.IntN(11) / 2 {
	case 0:
		r = core.PerSecond(1 + rng.Int64N(1000))
	case 1:
		r = core.PerMinute(1 + rng.Int64N(600))
	case 2: // fractional per second: 0.05/s to 50/s
		var err error
		r, err = core.RateOf(0.05 + rng.Float64()*50)
		if err != nil {
			panic(err)
		}
	case 3: // k per an odd number of ms
		r = core.Per(1+rng.Int64N(100), time.Duration(1+rng.Int64N(10_000))*time.Millisecond+time.Duration(rng.Int64N(1000)))
	case 4: // k per an odd number of ns: up to 5e10/s
		r = core.Per(1+rng.Int64N(50), time.Duration(1+rng.Int64N(1e9)))
	default: // faster than 1e9/s, where x/time/rate forgives a shortfall
		r = core.Per(1+rng.Int64N(50), time.Duration(1+rng.Int64N(60)))
	}
	b := core.TokenBucket{Rate: r, Burst: 1 + rng.Int64N(1000)}
	switch {
	case rng.IntN(10) == 0 && r.Count <= 1000:
		b.Burst = 0
	case rng.IntN(3) == 0:
		b.Burst = 1 + rng.Int64N(10)
	}
	return b
}

func tbBurst(b core.TokenBucket) int64 {
	if b.Burst == 0 {
		return b.Rate.Count
	}
	return b.Burst
}

// tbFill is the time an empty bucket takes to refill, roughly.
func tbFill(b core.TokenBucket) time.Duration {
	return time.Duration(float64(tbBurst(b)) * float64(b.Rate.Period) / float64(b.Rate.Count))
}

// tbStep returns a random clock step: often zero, mostly forwards by up to a
// few emission intervals or a whole refill, sometimes backwards.
func tbStep(rng *rand.Rand, b core.TokenBucket) time.Duration {
	iv := max(1, int64(b.Rate.Period)/b.Rate.Count)
	switch k := rng.IntN(20); {
	case k < 4:
		return 0
	case k < 5:
		return -time.Duration(rng.Int64N(3 * iv))
	case k < 6:
		return time.Duration(rng.Int64N(int64(tbFill(b)) + 1))
	case k < 8:
		return time.Duration(1 + rng.Int64N(1000))
	default:
		return time.Duration(rng.Int64N(3 * iv))
	}
}

func tbCost(rng *rand.Rand, burst int64) int64 {
	switch k := rng.IntN(10); {
	case k < 5:
		return 1
	case k < 7:
		return 1 + rng.Int64N(min(3, burst+1))
	default:
		return 1 + rng.Int64N(burst+1)
	}
}

func tbLimiter(t testing.TB, clk core.Clock, b core.TokenBucket) *core.Limiter {
	t.Helper()
	return newLimiter(t, clk, core.Limit{Name: "tb", Algorithm: b})
}

// tbFloor is Remaining as computed from x/time/rate's token count.
func tbFloor(tokens float64, burst int64) int64 {
	switch {
	case tokens < 1:
		return 0
	case tokens >= float64(burst):
		return burst
	}
	return int64(math.Floor(tokens))
}

// tbRefAdmits is x/time/rate's reserveN verdict with no wait allowed, from
// the tokens TokensAt reports.
func tbRefAdmits(lim *rate.Limiter, at time.Time, n int64) bool {
	tokens := lim.TokensAt(at) - float64(n)
	if tokens >= 0 {
		return true
	}
	return time.Duration(-tokens/float64(lim.Limit())*float64(time.Second)) <= 0
}

// TestTokenBucketMatchesXTimeRate replays random traces on a TokenBucket and
// on the x/time/rate Limiter it mirrors: every decision, every Remaining,
// every ResetAfter and RetryAfter agree with x/time/rate's token count, and
// refunds at the instant of the take match Reservation.CancelAt.
//
// Stale instants are fed to x/time/rate clamped to its last admitted take,
// as TokenBucket decides them; that x/time/rate would decide the raw instant
// identically is checked on the spot (TokensAt is the same at both).
func TestTokenBucketMatchesXTimeRate(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	var decisions, admitted, refunds int
	for trace := range 10_000 {
		b := tbRandomBucket(rng)
		burst := tbBurst(b)
		clk := coretest.NewClock(t0)
		l := tbLimiter(t, clk, b)
		ref := rate.NewLimiter(rate.Limit(float64(b.Rate.Count)/b.Rate.Period.Seconds()), int(burst))
		now, last := t0, time.Time{} // last: x/time/rate's last admitted instant
		steps := 1 + rng.IntN(50)
		for step := range steps {
			now = now.Add(tbStep(rng, b))
			clk.Set(now)
			at := now
			cost := tbCost(rng, burst)
			// Plain checks: testify's cost per call would dominate this loop.
			fail := func(format string, args ...any) {
				t.Helper()
				t.Fatalf("trace %d step %d: %+v burst %d cost %d at +%v (decided at +%v): %s",
					trace, step, b.Rate, burst, cost, now.Sub(t0), at.Sub(t0), fmt.Sprintf(format, args...))
			}
			if at.Before(last) {
				at = last
				if ref.TokensAt(last) != ref.TokensAt(now) {
					fail("x/time/rate does not see a stale instant as its last")
				}
			}
			if rng.IntN(8) == 0 { // a peek changes nothing
				p, err := l.Peek(tbCtx, "k", cost)
				if err != nil {
					t.Fatal(err)
				}
				if want := cost <= burst && tbRefAdmits(ref, at, cost); p.Allowed != want {
					fail("peek: allowed %v, x/time/rate %v", p.Allowed, want)
				}
			}
			before := ref.TokensAt(at)
			res, err := l.AllowN(tbCtx, "k", cost)
			if err != nil {
				t.Fatal(err)
			}
			refund := res.Allowed && rng.IntN(6) == 0
			var want bool
			var rsv *rate.Reservation
			if refund {
				rsv = ref.ReserveN(at, int(cost))
				want = rsv.OK() && rsv.DelayFrom(at) == 0
			} else {
				want = ref.AllowN(at, int(cost))
			}
			decisions++
			if res.Allowed != want {
				fail("allowed %v, x/time/rate %v (tokens %v)", res.Allowed, want, before)
			}
			if !res.Allowed {
				if w := tbFloor(before, burst); res.Remaining != w {
					fail("remaining %d, want %d (tokens %v)", res.Remaining, w, before)
				}
				if cost > burst {
					if res.RetryAfter != core.Never {
						fail("retry after %v, want Never", res.RetryAfter)
					}
				} else {
					retry := now.Add(res.RetryAfter)
					if !tbRefAdmits(ref, retry, cost) {
						fail("x/time/rate denies at +RetryAfter %v", res.RetryAfter)
					}
					if tbRefAdmits(ref, retry.Add(-1), cost) {
						fail("x/time/rate admits before +RetryAfter %v", res.RetryAfter)
					}
				}
			} else {
				admitted++
				last = at
				if w := tbFloor(ref.TokensAt(at), burst); res.Remaining != w || res.RetryAfter != 0 {
					fail("remaining %d, want %d; retry after %v", res.Remaining, w, res.RetryAfter)
				}
			}
			full := now.Add(res.ResetAfter)
			if ref.TokensAt(full) != float64(burst) {
				fail("not full after ResetAfter %v: %v tokens", res.ResetAfter, ref.TokensAt(full))
			}
			if res.ResetAfter > 0 && !full.Add(-1).Before(last) && !(ref.TokensAt(full.Add(-1)) < float64(burst)) {
				fail("full before ResetAfter %v", res.ResetAfter)
			}
			if refund {
				refunds++
				rsv.CancelAt(at)
				r, err := l.Refund(tbCtx, "k", res)
				if err != nil {
					t.Fatal(err)
				}
				if ref.TokensAt(at) != before {
					fail("x/time/rate's CancelAt does not restore the tokens: %v, was %v", ref.TokensAt(at), before)
				}
				// A refund reports what a peek of 1 does.
				if w := tbFloor(before-1, burst); r.Remaining != w {
					fail("after refund: remaining %d, want %d", r.Remaining, w)
				}
			}
		}
	}
	t.Logf("%d decisions, %d admitted, %d refunds", decisions, admitted, refunds)
	assert.Greater(t, admitted, decisions/4)
	assert.Less(t, admitted, decisions*9/10)
}

// TestTokenBucketStaleNowIsNotCreditedTwice shows the one way TokenBucket
// departs from x/time/rate: an admitted take at a stale instant is decided
// at the newest instant, as x/time/rate decides it, but it does not move the
// bucket's clock back, so the interval it skipped is not refilled a second
// time. x/time/rate admits 5 units within 2 s at 1/s with a burst of 2;
// TokenBucket admits 4.
func TestTokenBucketStaleNowIsNotCreditedTwice(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(t0)
	l := tbLimiter(t, clk, core.TokenBucket{Rate: core.PerSecond(1), Burst: 2})
	ref := rate.NewLimiter(1, 2)
	steps := []struct {
		at        time.Duration
		cost      int64
		allowed   bool // by both
		remaining int64
		retry     time.Duration
	}{
		{10 * time.Second, 2, true, 0, 0},
		// Stale: decided at 10 s, with no token. x/time/rate admits a
		// shortfall that refills in under 1 ns: at 11 s − 1 ns, 0.999999999
		// token is enough.
		{9 * time.Second, 1, false, 0, 2*time.Second - 1},
		{12 * time.Second, 1, true, 1, 0},
		{11 * time.Second, 1, true, 0, 0}, // stale: decided at 12 s, with 1 token
	}
	for _, s := range steps {
		clk.Set(t0.Add(s.at))
		r, err := l.AllowN(tbCtx, "k", s.cost)
		require.NoError(t, err)
		assert.Equal(t, s.allowed, r.Allowed, "at %v", s.at)
		assert.Equal(t, s.remaining, r.Remaining, "at %v", s.at)
		assert.Equal(t, s.retry, r.RetryAfter, "at %v", s.at)
		assert.Equal(t, s.allowed, ref.AllowN(clk.Now(), int(s.cost)), "x/time/rate at %v", s.at)
	}
	// x/time/rate's clock went back to 11 s: it refills 11 s–12 s again.
	clk.Set(t0.Add(12 * time.Second))
	assert.True(t, ref.AllowN(clk.Now(), 1), "x/time/rate admits a 5th unit")
	r, err := l.Allow(tbCtx, "k")
	require.NoError(t, err)
	assert.False(t, r.Allowed, "TokenBucket does not")
	assert.Equal(t, time.Second-1, r.RetryAfter)
}

// ceilRate returns ⌈limit·d/period⌉ exactly.
func ceilRate(r core.Rate, d time.Duration) int64 {
	hi, lo := bits.Mul64(uint64(r.Count), uint64(d))
	q, rem := bits.Div64(hi, lo, uint64(r.Period))
	if rem != 0 {
		q++
	}
	return int64(q)
}

// floorRate returns ⌊limit·d/period⌋ exactly.
func floorRate(r core.Rate, d time.Duration) int64 {
	hi, lo := bits.Mul64(uint64(r.Count), uint64(d))
	q, _ := bits.Div64(hi, lo, uint64(r.Period))
	return int64(q)
}

type tbTake struct {
	at   time.Duration
	cost int64
}

// tbMost bounds the units admitted within d of the first. Below one unit
// per ns it is the burst and what refills in d, ⌈rate·d⌉. Otherwise it is
// the burst and ⌊rate·(d+1ns)⌋: x/time/rate also forgives a shortfall that
// would refill in under 1 ns (see
// TestTokenBucketForgivesSubNanosecondShortfall); the bound on the units is
// strict in exact arithmetic, but not at float64's rounding.
func tbMost(b core.TokenBucket, d time.Duration) int64 {
	if b.Rate.Count < int64(b.Rate.Period) {
		return tbBurst(b) + ceilRate(b.Rate, d)
	}
	return tbBurst(b) + floorRate(b.Rate, d+1)
}

// TestTokenBucketNeverExceedsRate: over random schedules, the units admitted
// in every interval [a, b] between two admitted takes are at most Burst +
// ⌈rate·(b−a)⌉ (for rates of one per ns and more, see tbMost), and a fresh
// key admits exactly Burst units at once. Instants are the ones decided at: a
// stale now counts as the last admitted instant.
func TestTokenBucketNeverExceedsRate(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	for sched := range 10_000 {
		b := tbRandomBucket(rng)
		burst := tbBurst(b)
		clk := coretest.NewClock(t0)
		l := tbLimiter(t, clk, b)
		var takes []tbTake
		newest := time.Duration(math.MinInt64) // the last admitted instant
		// Half the schedules start greedy: exactly burst units pass at once.
		if sched%2 == 0 {
			most := tbMost(b, 0)
			n := int64(0)
			for range min(most+1, 60) {
				r, err := l.Allow(tbCtx, "k")
				if err != nil {
					t.Fatal(err)
				}
				if !r.Allowed {
					break
				}
				n++
				newest = 0
				takes = append(takes, tbTake{0, 1})
			}
			if b.Rate.Count < int64(b.Rate.Period) {
				require.Equal(t, min(burst, 60), n, "%+v burst %d", b.Rate, burst)
			} else {
				require.LessOrEqual(t, n, most, "%+v burst %d", b.Rate, burst)
				require.GreaterOrEqual(t, n, min(burst, 60), "%+v burst %d", b.Rate, burst)
			}
		} else if rng.IntN(2) == 0 {
			r, err := l.AllowN(tbCtx, "k", burst)
			require.NoError(t, err)
			require.True(t, r.Allowed)
			newest = 0
			takes = append(takes, tbTake{0, burst})
			if b.Rate.Count < int64(b.Rate.Period) {
				r, err = l.Allow(tbCtx, "k")
				require.NoError(t, err)
				require.False(t, r.Allowed)
			}
		}
		now := t0
		for range 50 {
			now = now.Add(tbStep(rng, b))
			clk.Set(now)
			cost := tbCost(rng, burst)
			r, err := l.AllowN(tbCtx, "k", cost)
			if err != nil {
				t.Fatal(err)
			}
			if r.Allowed {
				newest = max(newest, now.Sub(t0))
				takes = append(takes, tbTake{newest, cost})
			}
		}
		for i := range takes {
			sum := int64(0)
			for j := i; j < len(takes); j++ {
				sum += takes[j].cost
				d := takes[j].at - takes[i].at
				if bound := tbMost(b, d); sum > bound {
					t.Fatalf("schedule %d: %+v burst %d: takes %d..%d admit %d units in %v, more than %d", sched, b.Rate, burst, i, j, sum, d, bound)
				}
			}
		}
	}
}

// TestTokenBucketForgivesSubNanosecondShortfall: like x/time/rate, a take
// whose shortfall would refill in under a nanosecond passes (x/time/rate's
// wait rounds down to 0 ns), leaving the bucket in debt by that fraction.
// At 1/s this admits a unit 1 ns early; above one unit per ns, it admits up
// to ⌈rate·1ns⌉−1 units beyond the tokens held.
func TestTokenBucketForgivesSubNanosecondShortfall(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(t0)
	l := tbLimiter(t, clk, core.TokenBucket{Rate: core.PerSecond(1), Burst: 1})
	ref := rate.NewLimiter(1, 1)
	r, err := l.Allow(tbCtx, "k")
	require.NoError(t, err)
	require.True(t, r.Allowed)
	require.True(t, ref.AllowN(clk.Now(), 1))
	clk.Set(t0.Add(time.Second - 2))
	r, err = l.Allow(tbCtx, "k")
	require.NoError(t, err)
	assert.False(t, r.Allowed)
	assert.Equal(t, time.Nanosecond, r.RetryAfter)
	assert.False(t, ref.AllowN(clk.Now(), 1))
	clk.Set(t0.Add(time.Second - 1)) // 0.999999999 token: short by 1e-9, refilled in 0.99999997 ns
	r, err = l.Allow(tbCtx, "k")
	require.NoError(t, err)
	assert.True(t, r.Allowed)
	assert.True(t, ref.AllowN(clk.Now(), 1))

	// 10 per ns, burst 5: 5 + 9 units at once.
	b := core.TokenBucket{Rate: core.Rate{Count: 10, Period: 1}, Burst: 5}
	l = tbLimiter(t, clk, b)
	ref = rate.NewLimiter(rate.Limit(1e10), 5)
	var n int
	for range 20 {
		r, err := l.Allow(tbCtx, "k")
		require.NoError(t, err)
		require.Equal(t, ref.AllowN(clk.Now(), 1), r.Allowed)
		if r.Allowed {
			n++
		}
	}
	assert.Equal(t, 14, n)
}

// tbRandomState drives key k of l with a random schedule and returns the
// clock's final reading.
func tbRandomState(rng *rand.Rand, l *core.Limiter, clk *coretest.Clock, b core.TokenBucket, k string, steps int) time.Time {
	burst := tbBurst(b)
	now := clk.Now()
	for range steps {
		now = now.Add(tbStep(rng, b))
		clk.Set(now)
		r, _ := l.AllowN(tbCtx, k, tbCost(rng, burst))
		if r.Allowed && rng.IntN(10) == 0 {
			_, _ = l.Refund(tbCtx, k, r)
		}
	}
	return now
}

// TestTokenBucketRetryAfterExact: a denied request passes at
// now+RetryAfter, and neither 1 ns nor 1 ms earlier.
func TestTokenBucketRetryAfterExact(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	checked := 0
	for range 3000 {
		b := tbRandomBucket(rng)
		burst := tbBurst(b)
		clk := coretest.NewClock(t0)
		l := tbLimiter(t, clk, b)
		now := tbRandomState(rng, l, clk, b, "k", 1+rng.IntN(30))
		cost := 1 + rng.Int64N(burst)
		r, err := l.Peek(tbCtx, "k", cost)
		require.NoError(t, err)
		if r.Allowed {
			continue
		}
		checked++
		where := fmt.Sprintf("%+v burst %d cost %d at +%v: RetryAfter %v", b.Rate, burst, cost, now.Sub(t0), r.RetryAfter)
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

	// Over the burst: never.
	clk := coretest.NewClock(t0)
	l := tbLimiter(t, clk, core.TokenBucket{Rate: core.PerSecond(10), Burst: 5})
	r, err := l.AllowN(tbCtx, "k", 6)
	require.NoError(t, err)
	assert.False(t, r.Allowed)
	assert.Equal(t, core.Never, r.RetryAfter)
	assert.Equal(t, int64(5), r.Remaining)
}

func TestTokenBucketTranscript(t *testing.T) {
	t.Parallel()
	// 2 tokens per second, bucket of 4.
	clk := coretest.NewClock(t0)
	l := tbLimiter(t, clk, core.TokenBucket{Rate: core.PerSecond(2), Burst: 4})
	steps := []struct {
		at        time.Duration
		cost      int64
		allowed   bool
		remaining int64
		reset     time.Duration
		retry     time.Duration
	}{
		{0, 3, true, 1, 1500 * time.Millisecond, 0},
		{0, 2, false, 1, 1500 * time.Millisecond, 500 * time.Millisecond},
		{250 * time.Millisecond, 2, false, 1, 1250 * time.Millisecond, 250 * time.Millisecond},
		{500 * time.Millisecond, 2, true, 0, 2 * time.Second, 0},
		{100 * time.Millisecond, 1, false, 0, 2400 * time.Millisecond, 900 * time.Millisecond}, // stale
		{2500 * time.Millisecond, 4, true, 0, 2 * time.Second, 0},
		{2500 * time.Millisecond, 5, false, 0, 2 * time.Second, core.Never},
		{10 * time.Second, 1, true, 3, 500 * time.Millisecond, 0},
	}
	for _, s := range steps {
		clk.Set(t0.Add(s.at))
		r, err := l.AllowN(tbCtx, "k", s.cost)
		require.NoError(t, err)
		assert.Equal(t, s.allowed, r.Allowed, "at %v", s.at)
		assert.Equal(t, s.remaining, r.Remaining, "at %v", s.at)
		assert.Equal(t, s.reset, r.ResetAfter, "at %v", s.at)
		assert.Equal(t, s.retry, r.RetryAfter, "at %v", s.at)
		assert.Equal(t, int64(4), r.Quota, "at %v", s.at)
	}
	r, err := l.Peek(tbCtx, "k", 1)
	require.NoError(t, err)
	assert.Equal(t, 2*time.Second, r.Limits()[0].Window, "quota window: the time to refill the bucket")
}

// TestTokenBucketRefund: a refund at the take's instant restores exactly the
// tokens taken; a later one gives back no more than the bucket lacks.
func TestTokenBucketRefund(t *testing.T) {
	t.Parallel()
	t.Run("same instant restores exactly", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(7, 8))
		checked := 0
		for range 3000 {
			b := tbRandomBucket(rng)
			burst := tbBurst(b)
			clk := coretest.NewClock(t0)
			l := tbLimiter(t, clk, b)
			now := tbRandomState(rng, l, clk, b, "k", 1+rng.IntN(20))
			// Every cost's verdict and Remaining before the take...
			costs := []int64{1, 1 + rng.Int64N(burst), burst}
			var before []core.Result
			for _, c := range costs {
				p, err := l.Peek(tbCtx, "k", c)
				require.NoError(t, err)
				before = append(before, p)
			}
			cost := 1 + rng.Int64N(burst)
			r, err := l.AllowN(tbCtx, "k", cost)
			require.NoError(t, err)
			if !r.Allowed {
				continue
			}
			checked++
			_, err = l.Refund(tbCtx, "k", r)
			require.NoError(t, err)
			// ...are the same after the refund.
			for i, c := range costs {
				p, err := l.Peek(tbCtx, "k", c)
				require.NoError(t, err)
				where := fmt.Sprintf("%+v burst %d at +%v: take+refund %d, then peek %d", b.Rate, burst, now.Sub(t0), cost, c)
				assert.Equal(t, before[i].Allowed, p.Allowed, where)
				assert.Equal(t, before[i].Remaining, p.Remaining, where)
			}
		}
		assert.Greater(t, checked, 1000)
	})
	t.Run("later, capped at burst", func(t *testing.T) {
		clk := coretest.NewClock(t0)
		l := tbLimiter(t, clk, core.TokenBucket{Rate: core.PerSecond(1), Burst: 10})
		r, err := l.AllowN(tbCtx, "k", 6)
		require.NoError(t, err)
		require.True(t, r.Allowed)
		assert.Equal(t, int64(4), r.Remaining)
		clk.Advance(3 * time.Second) // 7 tokens
		r2, err := l.Refund(tbCtx, "k", r)
		require.NoError(t, err)
		assert.Equal(t, int64(9), r2.Remaining, "7 + 6 capped at 10, less the peek's 1")
		r3, err := l.AllowN(tbCtx, "k", 10)
		require.NoError(t, err)
		assert.True(t, r3.Allowed)
		r4, err := l.Allow(tbCtx, "k")
		require.NoError(t, err)
		assert.False(t, r4.Allowed, "the refund minted nothing beyond the burst")

		clk.Advance(time.Second) // 1 token
		r5, err := l.Refund(tbCtx, "k", r3)
		require.NoError(t, err)
		assert.Equal(t, int64(9), r5.Remaining, "1 + 10 capped at 10, less the peek's 1")
		p, err := l.Peek(tbCtx, "k", 11)
		require.NoError(t, err)
		assert.Equal(t, int64(10), p.Remaining)
		assert.Zero(t, p.ResetAfter)
	})
	t.Run("partial", func(t *testing.T) {
		clk := coretest.NewClock(t0)
		l := tbLimiter(t, clk, core.TokenBucket{Rate: core.PerSecond(1), Burst: 10})
		r, err := l.AllowN(tbCtx, "k", 8)
		require.NoError(t, err)
		require.True(t, r.Allowed)
		r2, err := l.AllowN(tbCtx, "k", 2)
		require.NoError(t, err)
		require.True(t, r2.Allowed)
		clk.Advance(time.Second)
		r3, err := l.Refund(tbCtx, "k", r2)
		require.NoError(t, err)
		assert.Equal(t, int64(2), r3.Remaining, "0 + 1 + 2, less the peek's 1")
		assert.Equal(t, 8*time.Second, r3.ResetAfter, "after the peek's 1")
	})
}

func TestTokenBucketValidate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		b    core.TokenBucket
		ok   bool
	}{
		{"per second", core.TokenBucket{Rate: core.PerSecond(10), Burst: 20}, true},
		{"burst defaults to limit", core.TokenBucket{Rate: core.PerMinute(100)}, true},
		{"burst 1", core.TokenBucket{Rate: core.PerHour(1), Burst: 1}, true},
		{"zero rate", core.TokenBucket{}, false},
		{"zero limit", core.TokenBucket{Rate: core.Rate{Period: time.Second}}, false},
		{"negative limit", core.TokenBucket{Rate: core.Rate{Count: -1, Period: time.Second}}, false},
		{"zero period", core.TokenBucket{Rate: core.Rate{Count: 1}}, false},
		{"negative period", core.TokenBucket{Rate: core.Rate{Count: 1, Period: -time.Second}}, false},
		{"period over 73 years", core.TokenBucket{Rate: core.Rate{Count: 1, Period: time.Duration(1<<61 + 1)}}, false},
		{"negative burst", core.TokenBucket{Rate: core.PerSecond(1), Burst: -1}, false},
		{"refill overflows", core.TokenBucket{Rate: core.PerDay(1), Burst: 1 << 20}, false},
		{"refill at the bound", core.TokenBucket{Rate: core.Rate{Count: 1, Period: 1 << 30}, Burst: 1 << 30}, true},
		{"refill just over", core.TokenBucket{Rate: core.Rate{Count: 1, Period: 1 << 30}, Burst: 1<<30 + 1}, false},
		{"huge burst at 1 ns", core.TokenBucket{Rate: core.Rate{Count: 1, Period: 1}, Burst: math.MaxInt64}, false},
		{"fast rate", core.TokenBucket{Rate: core.Rate{Count: math.MaxInt64, Period: 1}, Burst: 1}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkValidation(t, c.b, c.ok) })
	}
}

// TestTokenBucketIdleAtExact: from the instant ResetAfter reports (the
// instant the store may forget the key), a key decides exactly as a key
// never seen, for any continuation; one nanosecond earlier it is not yet
// full.
func TestTokenBucketIdleAtExact(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(9, 10))
	for i := range 3000 {
		b := tbRandomBucket(rng)
		burst := tbBurst(b)
		clk := coretest.NewClock(t0)
		l := tbLimiter(t, clk, b)
		now := tbRandomState(rng, l, clk, b, "k", 1+rng.IntN(30))
		// A peek over the burst reports the state's own refill time.
		p, err := l.Peek(tbCtx, "k", burst+1)
		require.NoError(t, err)
		idle := now.Add(p.ResetAfter)
		where := fmt.Sprintf("state %d: %+v burst %d: idle at +%v", i, b.Rate, burst, idle.Sub(t0))
		if p.ResetAfter > time.Nanosecond {
			clk.Set(idle.Add(-1))
			q, err := l.Peek(tbCtx, "k", burst+1)
			require.NoError(t, err)
			require.Equal(t, time.Nanosecond, q.ResetAfter, where)
		}
		// The same continuation on the key and on a fresh one.
		at := idle.Add(time.Duration(rng.Int64N(3)) * time.Duration(rng.Int64N(int64(b.Rate.Period)+1)))
		fresh := fmt.Sprint("fresh", i)
		for step := range 1 + rng.IntN(10) {
			clk.Set(at)
			cost := tbCost(rng, burst)
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
			at = at.Add(max(0, tbStep(rng, b)))
		}
	}
}
