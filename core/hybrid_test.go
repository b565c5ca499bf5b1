package core_test

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lbhHybridGen draws a Hybrid with a random quota and window, the window
// often not a multiple of the quota.
func lbhHybridGen(rng *rand.Rand) (core.Algorithm, int64, int64) {
	q := 1 + rng.Int64N(12)
	w := 1 + rng.Int64N(int64(time.Minute))
	if rng.IntN(3) == 0 {
		w = 1 + rng.Int64N(40) // a few nanoseconds: rounding of I matters
	}
	return core.Hybrid{Quota: q, Window: time.Duration(w)}, q, w/q + int64(min(1, w%q))
}

// Bursty mode: up to Quota units at any pace within a window anchored at
// the key's first request; a new window at the next request after it ends.
func TestHybridBurstyWindow(t *testing.T) {
	t.Parallel()
	s := time.Second
	clk := coretest.NewClock(t0)
	l := lbhSingle(t, clk, core.Hybrid{Quota: 5, Window: time.Minute})
	steps := []struct {
		at        time.Duration
		cost      int64
		allowed   bool
		remaining int64
		reset     time.Duration
		retry     time.Duration
	}{
		{10 * s, 2, true, 3, 60 * s, 0}, // window [10 s, 70 s)
		{40 * s, 2, true, 1, 30 * s, 0},
		{69 * s, 2, false, 1, 1 * s, 1 * s}, // waits for the window's end
		{69 * s, 6, false, 1, 1 * s, core.Never},
		{70 * s, 2, true, 3, 60 * s, 0}, // window [70 s, 130 s)
		{80 * s, 2, true, 1, 50 * s, 0},
	}
	for i, st := range steps {
		clk.Set(t0.Add(st.at))
		r := lbhTake(t, l, "k", st.cost)
		assert.Equal(t, st.allowed, r.Allowed, "step %d", i)
		assert.Equal(t, st.remaining, r.Remaining, "step %d", i)
		assert.Equal(t, st.reset, r.ResetAfter, "step %d", i)
		assert.Equal(t, st.retry, r.RetryAfter, "step %d", i)
		assert.Zero(t, r.Delay, "step %d", i)
	}
	// A client that never spends its whole quota stays bursty: 4 of 5 at
	// once in each of 50 windows.
	clk.Set(t0)
	for w := range 50 {
		clk.Set(t0.Add(time.Duration(w) * time.Minute))
		for i := range 4 {
			r := lbhTake(t, l, "steady", 1)
			require.True(t, r.Allowed, "window %d request %d", w, i)
			require.Equal(t, int64(4-i), r.Remaining)
		}
	}
}

// Spending the whole quota switches to smooth mode: nothing until the
// window ends, one unit at its end, then one unit per I = Window/Quota.
func TestHybridSmoothMode(t *testing.T) {
	t.Parallel()
	s := time.Second
	clk := coretest.NewClock(t0)
	l := lbhSingle(t, clk, core.Hybrid{Quota: 5, Window: time.Minute}) // I = 12 s
	steps := []struct {
		at        time.Duration
		cost      int64
		allowed   bool
		remaining int64
		reset     time.Duration
		retry     time.Duration
	}{
		{0, 3, true, 2, 60 * s, 0},            // window [0, 60 s)
		{20 * s, 2, true, 0, 88 * s, 0},       // exhausted: TAT = 60 s + 4·12 s
		{20 * s, 1, false, 0, 88 * s, 40 * s}, // the window's end
		{59 * s, 1, false, 0, 49 * s, 1 * s},
		{60 * s, 1, true, 0, 60 * s, 0},       // one unit at the window's end; TAT 120 s
		{60 * s, 1, false, 0, 60 * s, 12 * s}, // no new window: smooth now
		{71 * s, 1, false, 0, 49 * s, 1 * s},
		{72 * s, 1, true, 0, 60 * s, 0}, // TAT 132 s
		{80 * s, 1, false, 0, 52 * s, 4 * s},
		{84 * s, 1, true, 0, 60 * s, 0},  // TAT 144 s
		{120 * s, 2, true, 1, 48 * s, 0}, // TAT 168 s
		{144 * s, 1, true, 2, 36 * s, 0}, // TAT 180 s
		{150 * s, 5, false, 2, 30 * s, 30 * s},
		{150 * s, 6, false, 2, 30 * s, core.Never},
		{180 * s, 5, true, 0, 108 * s, 0}, // refilled: a fresh burst, exhausted again
	}
	for i, st := range steps {
		clk.Set(t0.Add(st.at))
		r := lbhTake(t, l, "k", st.cost)
		assert.Equal(t, st.allowed, r.Allowed, "step %d at %v", i, st.at)
		assert.Equal(t, st.remaining, r.Remaining, "step %d at %v", i, st.at)
		assert.Equal(t, st.reset, r.ResetAfter, "step %d at %v", i, st.at)
		assert.Equal(t, st.retry, r.RetryAfter, "step %d at %v", i, st.at)
	}
}

// The hybrid article: facing a client that sends a times faster than the
// rate, a linear limiter (GCRA of burst q at q per W) admits q·a/(a−1)
// requests before it throttles, while Hybrid admits q and then never more
// than q in any window (of the fixed grid anchored at the first request,
// and of any other W-long interval), yet keeps serving q per window.
func TestHybridVersusLinearAtFasterRates(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		q int64
		a int64
	}{{10, 2}, {60, 2}, {60, 4}, {7, 3}} {
		iv := 12 * time.Second // divisible by every a: no rounding
		w := time.Duration(tc.q) * iv
		gap := iv / time.Duration(tc.a)
		clk := coretest.NewClock(t0)
		lin := lbhSingle(t, clk, core.GCRA{Rate: core.Per(tc.q, w), Burst: tc.q})
		hyb := lbhSingle(t, clk, core.Hybrid{Quota: tc.q, Window: w})
		const windows = 40
		n := int(windows * tc.q * tc.a)
		linFirst, hybFirst := -1, -1
		var admitted []time.Duration // Hybrid's admissions
		for i := range n {
			at := time.Duration(i) * gap
			clk.Set(t0.Add(at))
			if !lbhTake(t, lin, "k", 1).Allowed && linFirst < 0 {
				linFirst = i
			}
			if lbhTake(t, hyb, "k", 1).Allowed {
				admitted = append(admitted, at)
			} else if hybFirst < 0 {
				hybFirst = i
			}
		}
		want := float64(tc.q*tc.a) / float64(tc.a-1)
		assert.InDelta(t, want, float64(linFirst), 1, "q=%d a=%d: linear admits q·a/(a−1) before throttling", tc.q, tc.a)
		assert.Equal(t, int(tc.q), hybFirst, "q=%d a=%d: Hybrid admits q before throttling", tc.q, tc.a)

		perWindow := make([]int64, windows)
		for _, at := range admitted {
			perWindow[at/w]++
		}
		for k, c := range perWindow {
			assert.LessOrEqual(t, c, tc.q, "q=%d a=%d: window %d", tc.q, tc.a, k)
			if k > 0 {
				assert.GreaterOrEqual(t, c, tc.q-1, "q=%d a=%d: window %d is still served", tc.q, tc.a, k)
			}
		}
		// Any W-long interval [admitted[i], admitted[i]+W).
		for i, j := 0, 0; i < len(admitted); i++ {
			for j < len(admitted) && admitted[j] < admitted[i]+w {
				j++
			}
			require.LessOrEqual(t, int64(j-i), tc.q, "q=%d a=%d: from %v", tc.q, tc.a, admitted[i])
		}
	}
}

// Once the linear bucket has refilled, the key is bursty again: a burst of q
// passes after a quiet Window beyond the debt, and not a nanosecond before.
func TestHybridReturnsToBursty(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(t0)
	l := lbhSingle(t, clk, core.Hybrid{Quota: 5, Window: time.Minute}) // I = 12 s
	for range 5 {
		require.True(t, lbhTake(t, l, "k", 1).Allowed)
	}
	// Debt until the window's end (t0+60 s), one unit back then, refilled
	// at TAT = 60 s + 4·12 s.
	clk.Set(t0.Add(108*time.Second - 1))
	assert.False(t, lbhPeek(t, l, "k", 5).Allowed)
	assert.True(t, lbhPeek(t, l, "k", 4).Allowed)
	clk.Set(t0.Add(108 * time.Second))
	for i := range 5 {
		r := lbhTake(t, l, "k", 1)
		require.True(t, r.Allowed, "request %d", i)
		assert.Equal(t, int64(4-i), r.Remaining)
	}
	r := lbhTake(t, l, "k", 1)
	assert.False(t, r.Allowed)
	assert.Equal(t, time.Minute, r.RetryAfter) // the window's end

	// The same after a long smooth phase: a client that keeps taking at
	// the linear rate from the window's end, 168 s (TAT 216 s), on, then
	// pauses for a Window beyond its debt, gets a burst again.
	for i := range 20 {
		clk.Set(t0.Add(168*time.Second + time.Duration(i)*12*time.Second))
		require.True(t, lbhTake(t, l, "k", 1).Allowed, "smooth request %d", i)
		require.False(t, lbhPeek(t, l, "k", 1).Allowed, "smooth request %d", i)
	}
	// The last smooth take was at 396 s, leaving TAT = 456 s.
	clk.Set(t0.Add(456*time.Second - 1))
	assert.False(t, lbhPeek(t, l, "k", 5).Allowed)
	clk.Set(t0.Add(456 * time.Second))
	assert.True(t, lbhPeek(t, l, "k", 5).Allowed)
	r = lbhTake(t, l, "k", 3)
	assert.True(t, r.Allowed)
	assert.Equal(t, int64(2), r.Remaining)
	assert.Equal(t, time.Minute, r.ResetAfter) // a new window
}

func TestHybridRetryAfterExact(t *testing.T) {
	t.Parallel()
	lbhCheckRetryAfter(t, 21, 1200, 40, lbhHybridGen)
}

func TestHybridRefund(t *testing.T) {
	t.Parallel()
	s := time.Second
	h := core.Hybrid{Quota: 5, Window: time.Minute} // I = 12 s

	t.Run("bursty: given back to the window", func(t *testing.T) {
		clk := coretest.NewClock(t0)
		l := lbhSingle(t, clk, h)
		a := lbhTake(t, l, "k", 3)
		clk.Set(t0.Add(10 * s))
		lbhTake(t, l, "k", 1)
		clk.Set(t0.Add(30 * s))
		r := lbhRefund(t, l, "k", a)
		assert.Equal(t, int64(3), r.Remaining) // a peek of 1: 5 − 1 − 1
		assert.Equal(t, 30*s, r.ResetAfter)    // same window
		assert.True(t, lbhTake(t, l, "k", 4).Allowed)
	})
	t.Run("bursty: not into the next window", func(t *testing.T) {
		clk := coretest.NewClock(t0)
		l := lbhSingle(t, clk, h)
		a := lbhTake(t, l, "k", 3)
		clk.Set(t0.Add(60 * s))
		lbhTake(t, l, "k", 4) // window [60 s, 120 s)
		clk.Set(t0.Add(70 * s))
		lbhRefund(t, l, "k", a)
		assert.False(t, lbhPeek(t, l, "k", 2).Allowed)
		assert.True(t, lbhPeek(t, l, "k", 1).Allowed)
	})
	t.Run("bursty: nothing after the window ended", func(t *testing.T) {
		clk := coretest.NewClock(t0)
		l := lbhSingle(t, clk, h)
		a := lbhTake(t, l, "k", 3)
		clk.Set(t0.Add(61 * s))
		r := lbhRefund(t, l, "k", a)
		assert.Equal(t, int64(4), r.Remaining)
		assert.Equal(t, time.Minute, r.ResetAfter) // a fresh key's peek: a new window
	})
	t.Run("bursty: refunding the whole count forgets the window", func(t *testing.T) {
		clk := coretest.NewClock(t0)
		l := lbhSingle(t, clk, h)
		a := lbhTake(t, l, "k", 2)
		clk.Set(t0.Add(10 * s))
		lbhRefund(t, l, "k", a)
		clk.Set(t0.Add(50 * s))
		r := lbhTake(t, l, "k", 1)
		assert.Equal(t, time.Minute, r.ResetAfter) // a new window from 50 s
	})
	t.Run("exhausting take and its refund: bursty again", func(t *testing.T) {
		clk := coretest.NewClock(t0)
		l := lbhSingle(t, clk, h)
		lbhTake(t, l, "k", 4)
		clk.Set(t0.Add(20 * s))
		before := lbhPeek(t, l, "k", 1)
		x := lbhTake(t, l, "k", 1)
		require.Equal(t, 88*s, x.ResetAfter) // smooth
		assert.Equal(t, before, lbhRefund(t, l, "k", x))
		clk.Set(t0.Add(60 * s))
		assert.True(t, lbhTake(t, l, "k", 5).Allowed) // a fresh window: no debt
	})
	t.Run("earlier take of the exhausted window, while it runs", func(t *testing.T) {
		clk := coretest.NewClock(t0)
		l := lbhSingle(t, clk, h)
		a := lbhTake(t, l, "k", 2)
		clk.Set(t0.Add(20 * s))
		lbhTake(t, l, "k", 3) // exhausted
		clk.Set(t0.Add(30 * s))
		r := lbhRefund(t, l, "k", a)
		assert.Equal(t, int64(1), r.Remaining)
		assert.Equal(t, 30*s, r.ResetAfter) // bursty, count 3
		assert.True(t, lbhTake(t, l, "k", 2).Allowed)
		assert.False(t, lbhPeek(t, l, "k", 1).Allowed)
		assert.Equal(t, 30*s, lbhPeek(t, l, "k", 1).RetryAfter) // smooth again: the window's end
	})
	t.Run("exhausted window ended: into the linear bucket", func(t *testing.T) {
		clk := coretest.NewClock(t0)
		l := lbhSingle(t, clk, h)
		a := lbhTake(t, l, "k", 3)
		clk.Set(t0.Add(10 * s))
		lbhTake(t, l, "k", 2) // exhausted: TAT 108 s
		clk.Set(t0.Add(70 * s))
		// a held its window's count until the window's end (60 s): its
		// late refund gives nothing back (TAT stays 108 s).
		r := lbhRefund(t, l, "k", a)
		assert.Equal(t, 50*s, r.ResetAfter) // a peek of 1: TAT 108 s + I − 70 s
		assert.Equal(t, 38*s, lbhPeek(t, l, "k", 5).RetryAfter)
		assert.False(t, lbhPeek(t, l, "k", 3).Allowed)
	})
	t.Run("stale refund after a smooth take does not reopen the window", func(t *testing.T) {
		clk := coretest.NewClock(t0)
		l := lbhSingle(t, clk, h)
		a := lbhTake(t, l, "k", 2)
		clk.Set(t0.Add(10 * s))
		lbhTake(t, l, "k", 3) // exhausted: TAT 108 s
		clk.Set(t0.Add(72 * s))
		require.True(t, lbhTake(t, l, "k", 1).Allowed) // smooth: TAT 120 s
		clk.Set(t0.Add(50 * s))                        // a refund with a stale now
		// a held its window until 60 s: 10 s of it are left to give back,
		// TAT 120 − 10 = 110 s.
		lbhRefund(t, l, "k", a)
		clk.Set(t0.Add(80 * s))
		assert.Equal(t, 30*s, lbhPeek(t, l, "k", 5).RetryAfter)
	})
	t.Run("smooth: TAT moves back, not below now", func(t *testing.T) {
		clk := coretest.NewClock(t0)
		l := lbhSingle(t, clk, h)
		a := lbhTake(t, l, "k", 5) // TAT 108 s
		clk.Set(t0.Add(80 * s))
		b := lbhTake(t, l, "k", 1) // TAT 120 s
		require.True(t, b.Allowed)
		r := lbhRefund(t, l, "k", b) // TAT 108 s
		assert.Equal(t, 40*s, r.ResetAfter)
		assert.Equal(t, int64(1), r.Remaining)
		assert.Equal(t, 4*s, lbhPeek(t, l, "k", 3).RetryAfter)
		// Taken in the exhausted window, which has ended: TAT −= 60 s,
		// but not below now (80 s): fully refilled, a key never seen.
		r = lbhRefund(t, l, "k", a)
		assert.Equal(t, int64(4), r.Remaining)
		assert.Equal(t, time.Minute, r.ResetAfter)
		assert.True(t, lbhPeek(t, l, "k", 5).Allowed)
		assert.Equal(t, core.Never, lbhPeek(t, l, "k", 6).RetryAfter)
	})
	t.Run("smooth: takes before the exhausted window are not refunded", func(t *testing.T) {
		clk := coretest.NewClock(t0)
		l := lbhSingle(t, clk, h)
		a := lbhTake(t, l, "k", 1) // window [0, 60 s)
		clk.Set(t0.Add(60 * s))
		lbhTake(t, l, "k", 5) // window [60 s, 120 s) exhausted: TAT 168 s
		clk.Set(t0.Add(130 * s))
		r := lbhRefund(t, l, "k", a)
		assert.Equal(t, 50*s, r.ResetAfter) // TAT 168 s + I − 130 s: nothing given back
		assert.Equal(t, int64(0), r.Remaining)
	})
}

func TestHybridValidate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		h    core.Hybrid
		ok   bool
	}{
		{"per minute", core.Hybrid{Quota: 100, Window: time.Minute}, true},
		{"quota above window in ns", core.Hybrid{Quota: 1000, Window: time.Microsecond}, true},
		{"one per nanosecond", core.Hybrid{Quota: 1, Window: 1}, true},
		{"18 years", core.Hybrid{Quota: 1, Window: 18 * 365 * 24 * time.Hour}, true},
		{"19 years: window + quota·I beyond 36 years", core.Hybrid{Quota: 1, Window: 19 * 365 * 24 * time.Hour}, false},
		{"zero value", core.Hybrid{}, false},
		{"zero quota", core.Hybrid{Window: time.Minute}, false},
		{"negative quota", core.Hybrid{Quota: -1, Window: time.Minute}, false},
		{"zero window", core.Hybrid{Quota: 1}, false},
		{"negative window", core.Hybrid{Quota: 1, Window: -time.Minute}, false},
		{"huge window", core.Hybrid{Quota: 1, Window: time.Duration(math.MaxInt64)}, false},
		{"huge quota", core.Hybrid{Quota: math.MaxInt64, Window: time.Second}, false},
		{"quota × 1 ns beyond 36 years", core.Hybrid{Quota: 1 << 62, Window: time.Second}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.h.Validate()
			_, perr := core.Single("p", tc.h)
			if tc.ok {
				assert.NoError(t, err)
				assert.NoError(t, perr)
				return
			}
			assert.ErrorIs(t, err, core.ErrInvalidConfig)
			assert.ErrorIs(t, perr, core.ErrInvalidConfig)
			assert.Contains(t, err.Error(), "Hybrid")
		})
	}
}

// The policy reports the quota and the window, in both modes.
func TestHybridQuota(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(t0)
	l := lbhSingle(t, clk, core.Hybrid{Quota: 7, Window: time.Hour})
	for range 2 {
		r := lbhTake(t, l, "k", 4)
		assert.Equal(t, int64(7), r.Quota)
		assert.Equal(t, time.Hour, r.Limits()[0].Window)
	}
}

func TestHybridIdleAtExact(t *testing.T) {
	t.Parallel()
	lbhCheckIdleAt(t, 23, 2000, lbhHybridGen)
}

func TestHybridTakeRefundRestores(t *testing.T) {
	t.Parallel()
	lbhCheckTakeRefund(t, 24, 2000, lbhHybridGen)
}

func TestHybridStaleNow(t *testing.T) {
	t.Parallel()
	lbhCheckStaleNow(t, 25, 2000, lbhHybridGen)
	// A stale now from the previous window counts against the current one.
	clk := coretest.NewClock(t0.Add(time.Minute))
	l := lbhSingle(t, clk, core.Hybrid{Quota: 5, Window: time.Minute})
	require.True(t, lbhTake(t, l, "k", 4).Allowed) // window [1 min, 2 min)
	clk.Set(t0.Add(50 * time.Second))
	r := lbhTake(t, l, "k", 2)
	assert.False(t, r.Allowed)
	assert.Equal(t, 70*time.Second, r.RetryAfter) // the current window's end
	assert.True(t, lbhTake(t, l, "k", 1).Allowed)
}
