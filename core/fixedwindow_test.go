package core_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// t0 is 5 s into a 10 s epoch-aligned window; fwStart is the start of the
// 10 s window after it.
var fwStart = t0.Truncate(10 * time.Second).Add(10 * time.Second)

func TestFixedWindowEpochAligned(t *testing.T) {
	t.Parallel()
	l, clk := winLimiter(t, core.FixedWindow{Quota: 3, Window: 10 * time.Second})
	steps := []struct {
		name      string
		at        time.Duration // from fwStart
		cost      int64
		allowed   bool
		remaining int64
		reset     time.Duration
		retry     time.Duration
	}{
		{"first", 2 * time.Second, 1, true, 2, 8 * time.Second, 0},
		{"second", 3 * time.Second, 2, true, 0, 7 * time.Second, 0},
		{"full", 4 * time.Second, 1, false, 0, 6 * time.Second, 6 * time.Second},
		{"just before the end", 10*time.Second - time.Nanosecond, 1, false, 0, time.Nanosecond, time.Nanosecond},
		{"next window", 10 * time.Second, 1, true, 2, 10 * time.Second, 0},
		{"more than the limit", 11 * time.Second, 4, false, 2, 9 * time.Second, core.Never},
		{"after an idle window", 35 * time.Second, 3, true, 0, 5 * time.Second, 0},
	}
	for _, s := range steps {
		r := winTake(t, l, clk, fwStart.Add(s.at), "k", s.cost)
		assert.Equal(t, s.allowed, r.Allowed, s.name)
		assert.Equal(t, s.remaining, r.Remaining, s.name)
		assert.Equal(t, s.reset, r.ResetAfter, s.name)
		assert.Equal(t, s.retry, r.RetryAfter, s.name)
		assert.Equal(t, int64(3), r.Quota, s.name)
		assert.Equal(t, 10*time.Second, r.Limits()[0].Window, s.name)
	}
}

func TestFixedWindowBoundaryBurst(t *testing.T) {
	t.Parallel()
	// The known weakness: Quota at the very end of one window and Quota at
	// the very start of the next pass within 2 ms.
	const limit = 5
	l, clk := winLimiter(t, core.FixedWindow{Quota: limit, Window: time.Minute})
	boundary := t0.Truncate(time.Minute).Add(time.Minute)
	admitted := 0
	for i := range limit {
		at := boundary.Add(-time.Millisecond + time.Duration(i)*time.Microsecond)
		if winTake(t, l, clk, at, "k", 1).Allowed {
			admitted++
		}
	}
	for i := range limit {
		at := boundary.Add(time.Duration(i) * time.Microsecond)
		if winTake(t, l, clk, at, "k", 1).Allowed {
			admitted++
		}
	}
	assert.Equal(t, 2*limit, admitted, "2·Limit within 1 ms + 5 µs around the boundary")
	assert.False(t, winTake(t, l, clk, boundary.Add(time.Millisecond), "k", 1).Allowed)
}

func TestFixedWindowAnchored(t *testing.T) {
	t.Parallel()
	l, clk := winLimiter(t, core.FixedWindow{Quota: 2, Window: 10 * time.Second, Anchored: true})
	start := t0.Add(1234 * time.Millisecond) // not aligned to anything
	steps := []struct {
		name    string
		at      time.Duration // from start
		allowed bool
		reset   time.Duration
		retry   time.Duration
	}{
		{"first request starts the window", 0, true, 10 * time.Second, 0},
		{"second", 9 * time.Second, true, time.Second, 0},
		{"full", 9*time.Second + 500*time.Millisecond, false, 500 * time.Millisecond, 500 * time.Millisecond},
		{"the window ended: a new one starts here", 13 * time.Second, true, 10 * time.Second, 0},
		{"it holds 2", 22*time.Second + 999*time.Millisecond, true, time.Millisecond, 0},
		{"and ends 10 s after it started", 23*time.Second - time.Nanosecond, false, time.Nanosecond, time.Nanosecond},
		{"idle for long: the next request starts a window", 100 * time.Second, true, 10 * time.Second, 0},
	}
	for _, s := range steps {
		r := winTake(t, l, clk, start.Add(s.at), "k", 1)
		assert.Equal(t, s.allowed, r.Allowed, s.name)
		assert.Equal(t, s.reset, r.ResetAfter, s.name)
		assert.Equal(t, s.retry, r.RetryAfter, s.name)
	}
	// Keys have their own phase.
	r := winTake(t, l, clk, start.Add(105*time.Second), "other", 2)
	assert.True(t, r.Allowed)
	assert.Equal(t, 10*time.Second, r.ResetAfter)
	r = winTake(t, l, clk, start.Add(110*time.Second), "k", 1)
	assert.True(t, r.Allowed, "k's window started at 100 s and ended at 110 s")
	r = winTake(t, l, clk, start.Add(110*time.Second), "other", 1)
	assert.False(t, r.Allowed, "other's window started at 105 s")
	assert.Equal(t, 5*time.Second, r.RetryAfter)
}

func TestFixedWindowStaleNow(t *testing.T) {
	t.Parallel()
	for _, anchored := range []bool{false, true} {
		l, clk := winLimiter(t, core.FixedWindow{Quota: 3, Window: 10 * time.Second, Anchored: anchored})
		require.True(t, winTake(t, l, clk, fwStart.Add(time.Second), "k", 2).Allowed)
		// A caller that read its clock in the previous window is counted
		// in the current one.
		// Its window ends 10 s after its start: fwStart, or the first
		// request when anchored.
		end := 11 * time.Second
		if anchored {
			end = 12 * time.Second
		}
		stale := fwStart.Add(-time.Second)
		r := winTake(t, l, clk, stale, "k", 1)
		require.True(t, r.Allowed)
		assert.Equal(t, int64(0), r.Remaining)
		assert.Equal(t, end, r.ResetAfter)
		r = winTake(t, l, clk, stale, "k", 1)
		require.False(t, r.Allowed, "anchored=%v", anchored)
		assert.Equal(t, end, r.RetryAfter)
		winCheckRetry(t, l, clk, stale, "k", 1, r)
		assert.False(t, winTake(t, l, clk, fwStart.Add(5*time.Second), "k", 1).Allowed)
	}
}

func TestFixedWindowRefund(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l, clk := winLimiter(t, core.FixedWindow{Quota: 2, Window: 10 * time.Second})
	a := winTake(t, l, clk, fwStart.Add(8*time.Second), "k", 2)
	require.True(t, a.Allowed)
	// In the same window the refund is credited.
	clk.Set(fwStart.Add(9 * time.Second))
	r, err := l.Refund(ctx, "k", a)
	require.NoError(t, err)
	assert.True(t, r.Allowed)
	assert.Equal(t, int64(1), r.Remaining, "a peek of 1 on an empty window")
	b := winTake(t, l, clk, fwStart.Add(9*time.Second), "k", 2)
	require.True(t, b.Allowed)

	// After the rollover it is not: the new window never held that cost.
	require.True(t, winTake(t, l, clk, fwStart.Add(10*time.Second), "k", 2).Allowed)
	r, err = l.Refund(ctx, "k", b)
	require.NoError(t, err)
	assert.Equal(t, int64(0), r.Remaining)
	assert.False(t, winTake(t, l, clk, fwStart.Add(11*time.Second), "k", 1).Allowed)

	// A refund of a peek or a denial is refused by the limiter.
	_, err = l.Refund(ctx, "k", winPeek(t, l, clk, fwStart.Add(11*time.Second), "k", 1))
	assert.ErrorIs(t, err, core.ErrNotTaken)

	// A take and its refund at the same instant leave a key that decides
	// as a fresh one from then on, but keeps the window's start for an
	// older caller.
	s, err := core.NewProbe(core.FixedWindow{Quota: 2, Window: 10 * time.Second, Anchored: true})
	require.NoError(t, err)
	st := make([]int64, s.Words())
	now := fwStart.UnixNano()
	require.True(t, s.Take(st, now, 2, true).Allowed)
	s.Refund(st, now, now, 2)
	assert.Equal(t, []int64{0, now}, st)
	assert.Equal(t, now+int64(10*time.Second), s.IdleAt(st))
}

// A caller whose clock lags a window that refunds emptied is counted in
// that window, never in the past one it would otherwise fall in (which may
// be full already): time does not move back after a refund.
func TestFixedWindowLaggingCallerAfterRefund(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, anchored := range []bool{false, true} {
		l, clk := winLimiter(t, core.FixedWindow{Quota: 3, Window: 10 * time.Second, Anchored: anchored})
		require.True(t, winTake(t, l, clk, fwStart.Add(5*time.Second), "k", 3).Allowed) // [0, 10 s) is full
		a := winTake(t, l, clk, fwStart.Add(15*time.Second), "k", 1)                    // the next window
		require.True(t, a.Allowed)
		clk.Set(fwStart.Add(15 * time.Second))
		_, err := l.Refund(ctx, "k", a)
		require.NoError(t, err)
		// 6 s behind: counted in the emptied window (from 10 s, or 15 s
		// anchored), not in the full one before it, which would then hold
		// 6; so the emptied window is full at 19.5 s.
		for i := 0; i < 3; i++ {
			require.True(t, winTake(t, l, clk, fwStart.Add(9*time.Second), "k", 1).Allowed)
		}
		assert.False(t, winTake(t, l, clk, fwStart.Add(9*time.Second), "k", 1).Allowed)
		assert.False(t, winTake(t, l, clk, fwStart.Add(19500*time.Millisecond), "k", 1).Allowed, "anchored %v", anchored)
	}
}

func TestFixedWindowRetryAfterExact(t *testing.T) {
	t.Parallel()
	for _, anchored := range []bool{false, true} {
		l, clk := winLimiter(t, core.FixedWindow{Quota: 4, Window: 3 * time.Second, Anchored: anchored})
		rng := rand.New(rand.NewPCG(1, 2))
		at := t0
		denials := 0
		for range 2000 {
			at = at.Add(time.Duration(rng.Int64N(int64(time.Second))))
			cost := 1 + rng.Int64N(4)
			if r := winTake(t, l, clk, at, "k", cost); !r.Allowed {
				denials++
				winCheckRetry(t, l, clk, at, "k", cost, r)
			}
		}
		assert.Greater(t, denials, 200)
	}
}

func TestFixedWindowNever(t *testing.T) {
	t.Parallel()
	l, clk := winLimiter(t, core.FixedWindow{Quota: 3, Window: time.Second})
	r := winTake(t, l, clk, t0, "k", 4)
	assert.False(t, r.Allowed)
	assert.Equal(t, core.Never, r.RetryAfter)
	assert.Equal(t, int64(3), r.Remaining)
	assert.Zero(t, r.ResetAfter)
	require.True(t, winTake(t, l, clk, t0, "k", 1).Allowed)
	r = winTake(t, l, clk, t0, "k", 1<<62)
	assert.Equal(t, core.Never, r.RetryAfter)
	assert.Equal(t, int64(2), r.Remaining)
}

func TestFixedWindowValidate(t *testing.T) {
	t.Parallel()
	winInvalid(t, map[string]core.Algorithm{
		"minimal":    core.FixedWindow{Quota: 1, Window: 1},
		"huge limit": core.FixedWindow{Quota: 1<<63 - 1, Window: time.Hour},
		"36 years":   core.FixedWindow{Quota: 10, Window: time.Duration(1) << 60},
		"anchored":   core.FixedWindow{Quota: 10, Window: time.Hour, Anchored: true},
	}, map[string]core.Algorithm{
		"zero":            core.FixedWindow{},
		"zero limit":      core.FixedWindow{Window: time.Second},
		"negative limit":  core.FixedWindow{Quota: -1, Window: time.Second},
		"zero window":     core.FixedWindow{Quota: 1},
		"negative window": core.FixedWindow{Quota: 1, Window: -time.Second},
		"window too long": core.FixedWindow{Quota: 1, Window: time.Duration(1)<<61 + 1},
	})
}

func TestFixedWindowIdleAt(t *testing.T) {
	t.Parallel()
	for _, anchored := range []bool{false, true} {
		winCheckIdleAt(t, core.FixedWindow{Quota: 5, Window: 10 * time.Second, Anchored: anchored}, 10*time.Second, 6, 1500)
		winCheckIdleAt(t, core.FixedWindow{Quota: 1, Window: 7, Anchored: anchored}, 7, 2, 500)
	}
}

// fwModel is FixedWindow's definition, over the log of admitted units.
// Stale callers are counted at the newest admitted instant, as the
// algorithm counts them in the current window.
type fwModel struct {
	limit, window int64
	anchored      bool
	last          int64 // the newest admitted instant, or MinInt64
	start, count  int64 // the window of last and what it holds
}

// decide returns whether cost passes at now and the RetryAfter (0 when it
// passes), and admits it when it does.
func (m *fwModel) decide(now, cost int64) (bool, int64, int64) {
	eff := max(now, m.last)
	start, count := m.start, m.count
	if m.last == -1<<63 || eff-m.start >= m.window {
		start, count = eff, 0
		if !m.anchored {
			start = eff - ((eff%m.window)+m.window)%m.window
		}
	}
	if cost > m.limit {
		return false, int64(core.Never), m.limit - count
	}
	if count+cost > m.limit {
		return false, start + m.window - now, m.limit - count
	}
	m.last, m.start, m.count = eff, start, count+cost
	return true, 0, m.limit - count - cost
}

func TestFixedWindowRandomSchedules(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(2026, 1))
	ls := newWinLimiters(t)
	for sched := range 10000 {
		limit := 1 + rng.Int64N(6)
		window := time.Duration(1+rng.Int64N(10)) * time.Second
		if rng.IntN(5) == 0 {
			window = time.Duration(1 + rng.Int64N(20)) // nanoseconds
		}
		anchored := rng.IntN(2) == 0
		l := ls.get(core.FixedWindow{Quota: limit, Window: window, Anchored: anchored})
		clk := ls.clk
		m := &fwModel{limit: limit, window: int64(window), anchored: anchored, last: -1 << 63}
		sums := map[int64]int64{} // units per window start
		at := t0.Add(time.Duration(rng.Int64N(int64(3 * window))))
		newest := at
		for step := range 1 + rng.IntN(50) {
			switch rng.IntN(8) {
			case 0: // a stale caller
				at = newest.Add(-time.Duration(rng.Int64N(int64(window))))
			case 1:
			default:
				newest = newest.Add(time.Duration(rng.Int64N(int64(window)/2 + 1)))
				at = newest
			}
			cost := 1 + rng.Int64N(limit+1)
			r := winTake(t, l, clk, at, "k", cost)
			ok, retry, remaining := m.decide(at.UnixNano(), cost)
			winCheck(t, ok == r.Allowed && time.Duration(retry) == r.RetryAfter && remaining == r.Remaining,
				"schedule %d step %d: cost %d: got %+v, want allowed %v, retry %v, remaining %d", sched, step, cost, r, ok, time.Duration(retry), remaining)
			if ok {
				sums[m.start] += cost
				winCheck(t, sums[m.start] <= limit, "schedule %d step %d: %d > limit in a window", sched, step, sums[m.start])
			} else if step%8 == 0 {
				winCheckRetry(t, l, clk, at, "k", cost, r)
			}
		}
	}
}
