package core_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSlidingLogTrailingWindow(t *testing.T) {
	t.Parallel()
	l, clk := winLimiter(t, core.SlidingLog{Quota: 3, Window: 10 * time.Second})
	steps := []struct {
		name      string
		at        time.Duration // from t0
		cost      int64
		allowed   bool
		remaining int64
		reset     time.Duration
		retry     time.Duration
	}{
		{"first", 0, 1, true, 2, 10 * time.Second, 0},
		{"two more", 4 * time.Second, 2, true, 0, 10 * time.Second, 0},
		{"full", 6 * time.Second, 1, false, 0, 8 * time.Second, 4 * time.Second},
		{"cost 2 waits for the second entry", 6 * time.Second, 2, false, 0, 8 * time.Second, 8 * time.Second},
		{"just before the first expires", 10*time.Second - time.Nanosecond, 1, false, 0, 4*time.Second + time.Nanosecond, time.Nanosecond},
		{"the first expired", 10 * time.Second, 1, true, 0, 10 * time.Second, 0},
		{"more than the limit", 11 * time.Second, 4, false, 0, 9 * time.Second, core.Never},
		{"the two at 4 s expired", 14 * time.Second, 2, true, 0, 10 * time.Second, 0},
		{"idle for a window", 24 * time.Second, 3, true, 0, 10 * time.Second, 0},
	}
	for _, s := range steps {
		r := winTake(t, l, clk, t0.Add(s.at), "k", s.cost)
		assert.Equal(t, s.allowed, r.Allowed, s.name)
		assert.Equal(t, s.remaining, r.Remaining, s.name)
		assert.Equal(t, s.reset, r.ResetAfter, s.name)
		assert.Equal(t, s.retry, r.RetryAfter, s.name)
		assert.Equal(t, int64(3), r.Quota, s.name)
	}
}

func TestSlidingLogNoBoundaryBurst(t *testing.T) {
	t.Parallel()
	// Unlike FixedWindow, no interval of a window admits more than Quota.
	l, clk := winLimiter(t, core.SlidingLog{Quota: 5, Window: time.Minute})
	boundary := t0.Truncate(time.Minute).Add(time.Minute)
	admitted := 0
	for i := range 10 {
		if winTake(t, l, clk, boundary.Add(time.Duration(i-5)*time.Microsecond), "k", 1).Allowed {
			admitted++
		}
	}
	assert.Equal(t, 5, admitted)
}

func TestSlidingLogCountRejected(t *testing.T) {
	t.Parallel()
	// A client sending 1 request per second against 5 per 10 s.
	hammer := func(countRejected bool) (admitted int) {
		l, clk := winLimiter(t, core.SlidingLog{Quota: 5, Window: 10 * time.Second, CountRejected: countRejected})
		for i := range 100 {
			if winTake(t, l, clk, t0.Add(time.Duration(i)*time.Second), "k", 1).Allowed {
				admitted++
			}
		}
		// After a pause of a whole window it passes again.
		assert.True(t, winTake(t, l, clk, t0.Add(109*time.Second), "k", 5).Allowed)
		return admitted
	}
	assert.Equal(t, 50, hammer(false), "without CountRejected: 5 every 10 s")
	assert.Equal(t, 5, hammer(true), "with CountRejected: the first 5, then denied while it hammers")

	// A client that waits RetryAfter after each denial gets through: the
	// wait includes its own logged attempt.
	l, clk := winLimiter(t, core.SlidingLog{Quota: 3, Window: 10 * time.Second, CountRejected: true})
	var at time.Time
	for i := range 3 {
		require.True(t, winTake(t, l, clk, t0.Add(time.Duration(i)*time.Second), "k", 1).Allowed)
	}
	at = t0.Add(3 * time.Second)
	r := winTake(t, l, clk, at, "k", 1)
	require.False(t, r.Allowed)
	// The log is now 1 s, 2 s and 3 s: 1 s must expire.
	assert.Equal(t, 8*time.Second, r.RetryAfter)
	winCheckRetry(t, l, clk, at, "k", 1, r)
	// A peek logs nothing but is told the wait an attempt would get: the
	// log would become 2 s, 3 s, 3 s.
	p := winPeek(t, l, clk, at, "k", 1)
	assert.Equal(t, 9*time.Second, p.RetryAfter)
	assert.True(t, winTake(t, l, clk, at.Add(r.RetryAfter), "k", 1).Allowed)

	// A cost above half the limit waits for its own attempt to expire.
	l, clk = winLimiter(t, core.SlidingLog{Quota: 3, Window: 10 * time.Second, CountRejected: true})
	require.True(t, winTake(t, l, clk, t0, "k", 2).Allowed)
	r = winTake(t, l, clk, t0.Add(time.Second), "k", 2)
	require.False(t, r.Allowed)
	assert.Equal(t, 10*time.Second, r.RetryAfter)
	winCheckRetry(t, l, clk, t0.Add(time.Second), "k", 2, r)

	// An attempt that can never pass is not logged.
	l, clk = winLimiter(t, core.SlidingLog{Quota: 3, Window: 10 * time.Second, CountRejected: true})
	require.True(t, winTake(t, l, clk, t0, "k", 1).Allowed)
	r = winTake(t, l, clk, t0, "k", 4)
	assert.Equal(t, core.Never, r.RetryAfter)
	assert.True(t, winTake(t, l, clk, t0, "k", 2).Allowed)
}

func TestSlidingLogStaleNow(t *testing.T) {
	t.Parallel()
	l, clk := winLimiter(t, core.SlidingLog{Quota: 2, Window: 10 * time.Second})
	require.True(t, winTake(t, l, clk, t0.Add(5*time.Second), "k", 1).Allowed)
	// A caller 3 s behind is decided and logged as of 5 s.
	r := winTake(t, l, clk, t0.Add(2*time.Second), "k", 1)
	require.True(t, r.Allowed)
	assert.Equal(t, 13*time.Second, r.ResetAfter, "its entry expires at 15 s")
	r = winTake(t, l, clk, t0.Add(2*time.Second), "k", 1)
	require.False(t, r.Allowed)
	assert.Equal(t, 13*time.Second, r.RetryAfter)
	winCheckRetry(t, l, clk, t0.Add(2*time.Second), "k", 1, r)
	assert.False(t, winTake(t, l, clk, t0.Add(14*time.Second), "k", 1).Allowed)
	assert.True(t, winTake(t, l, clk, t0.Add(15*time.Second), "k", 2).Allowed)
}

func TestSlidingLogRefund(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l, clk := winLimiter(t, core.SlidingLog{Quota: 4, Window: 10 * time.Second})
	a := winTake(t, l, clk, t0, "k", 2)
	b := winTake(t, l, clk, t0.Add(time.Second), "k", 1)
	c := winTake(t, l, clk, t0.Add(2*time.Second), "k", 1)
	require.True(t, a.Allowed && b.Allowed && c.Allowed)
	// Refunding b removes its entry, from the middle of the log.
	clk.Set(t0.Add(3 * time.Second))
	r, err := l.Refund(ctx, "k", b)
	require.NoError(t, err)
	assert.Equal(t, int64(0), r.Remaining, "a peek of 1 after the refund")
	d := winTake(t, l, clk, t0.Add(3*time.Second), "k", 1)
	require.True(t, d.Allowed)
	// The log is 0, 0, 2 s, 3 s: a cost of 2 passes when a expires.
	r = winTake(t, l, clk, t0.Add(4*time.Second), "k", 2)
	assert.Equal(t, 6*time.Second, r.RetryAfter)
	// A second refund of a is refused and changes nothing.
	clk.Set(t0.Add(4 * time.Second))
	_, err = l.Refund(ctx, "k", a)
	require.NoError(t, err)
	_, err = l.Refund(ctx, "k", a)
	require.ErrorIs(t, err, core.ErrRefunded)
	r, err = l.Peek(ctx, "k", 1)
	require.NoError(t, err)
	assert.Equal(t, int64(1), r.Remaining)
	r = winTake(t, l, clk, t0.Add(4*time.Second), "k", 3)
	assert.False(t, r.Allowed)
	assert.Equal(t, 8*time.Second, r.RetryAfter, "c expires at 12 s")
	// After expiry a refund changes nothing.
	require.True(t, winTake(t, l, clk, t0.Add(13*time.Second), "k", 3).Allowed)
	clk.Set(t0.Add(13 * time.Second))
	r, err = l.Refund(ctx, "k", c)
	require.NoError(t, err)
	assert.Equal(t, int64(0), r.Remaining)

	// A take and its refund at the same instant leave a key that decides
	// as a fresh one from that instant on, but keeps the instant for a
	// window (time does not move back for a lagging caller).
	s, err := core.NewProbe(core.SlidingLog{Quota: 3, Window: 10 * time.Second})
	require.NoError(t, err)
	st := make([]int64, s.Words())
	now := t0.UnixNano()
	require.True(t, s.Take(st, now, 3, true).Allowed)
	s.Refund(st, now, now, 3)
	assert.Equal(t, now+int64(10*time.Second), s.IdleAt(st))
	assert.Equal(t, int64(2), s.Take(st, now, 1, false).Remaining)
}

func TestSlidingLogLargestLimit(t *testing.T) {
	t.Parallel()
	l, clk := winLimiter(t, core.SlidingLog{Quota: core.MaxSlidingLogQuota, Window: time.Minute})
	require.True(t, winTake(t, l, clk, t0, "k", core.MaxSlidingLogQuota-1).Allowed)
	require.True(t, winTake(t, l, clk, t0.Add(time.Second), "k", 1).Allowed)
	r := winTake(t, l, clk, t0.Add(2*time.Second), "k", 2)
	require.False(t, r.Allowed)
	assert.Equal(t, 58*time.Second, r.RetryAfter)
	winCheckRetry(t, l, clk, t0.Add(2*time.Second), "k", 2, r)
	r = winTake(t, l, clk, t0.Add(time.Minute), "k", core.MaxSlidingLogQuota-1)
	assert.True(t, r.Allowed)
	assert.Equal(t, int64(0), r.Remaining)
}

func TestSlidingLogNever(t *testing.T) {
	t.Parallel()
	l, clk := winLimiter(t, core.SlidingLog{Quota: 3, Window: time.Second})
	r := winTake(t, l, clk, t0, "k", 4)
	assert.False(t, r.Allowed)
	assert.Equal(t, core.Never, r.RetryAfter)
	assert.Equal(t, int64(3), r.Remaining)
	require.True(t, winTake(t, l, clk, t0, "k", 1).Allowed)
	r = winTake(t, l, clk, t0, "k", 1<<62)
	assert.Equal(t, core.Never, r.RetryAfter)
	assert.Equal(t, int64(2), r.Remaining)
}

func TestSlidingLogValidate(t *testing.T) {
	t.Parallel()
	winInvalid(t, map[string]core.Algorithm{
		"minimal":       core.SlidingLog{Quota: 1, Window: 1},
		"largest limit": core.SlidingLog{Quota: core.MaxSlidingLogQuota, Window: time.Hour},
		"36 years":      core.SlidingLog{Quota: 10, Window: time.Duration(1) << 60},
	}, map[string]core.Algorithm{
		"zero":            core.SlidingLog{},
		"zero limit":      core.SlidingLog{Window: time.Second},
		"negative limit":  core.SlidingLog{Quota: -1, Window: time.Second},
		"limit too large": core.SlidingLog{Quota: core.MaxSlidingLogQuota + 1, Window: time.Second},
		"zero window":     core.SlidingLog{Quota: 1},
		"negative window": core.SlidingLog{Quota: 1, Window: -1},
		"window too long": core.SlidingLog{Quota: 1, Window: time.Duration(1)<<61 + 1},
	})
	p, err := core.Single("big", core.SlidingLog{Quota: core.MaxSlidingLogQuota, Window: time.Second})
	require.NoError(t, err)
	assert.Equal(t, core.MaxSlidingLogQuota+3, p.StateWords())
}

func TestSlidingLogIdleAt(t *testing.T) {
	t.Parallel()
	for _, cr := range []bool{false, true} {
		winCheckIdleAt(t, core.SlidingLog{Quota: 5, Window: 10 * time.Second, CountRejected: cr}, 10*time.Second, 6, 1500)
		winCheckIdleAt(t, core.SlidingLog{Quota: 2, Window: 5, CountRejected: cr}, 5, 3, 500)
	}
}

// slModel is SlidingLog's definition: the log of admitted (and, with
// countRejected, denied) units, never truncated to limit entries. Stale
// callers are decided and logged at the latest instant logged, which a
// refund does not move back.
type slModel struct {
	limit, window int64
	countRejected bool
	log           []int64 // sorted
	admitted      []int64 // admitted units only, sorted
	latest        int64
}

// eff is the instant a request at now is decided at.
func (m *slModel) eff(now int64) int64 { return max(now, m.latest) }

// slCounted returns the entries of log that count at t.
func slCounted(log []int64, t, window int64) int64 {
	return int64(len(log) - sort.Search(len(log), func(i int) bool { return log[i] > t-window }))
}

func (m *slModel) admits(now, cost int64) bool {
	return cost <= m.limit && slCounted(m.log, m.eff(now), m.window)+cost <= m.limit
}

// decide returns whether cost passes at now, the RetryAfter and the
// Remaining, and logs the request.
func (m *slModel) decide(now, cost int64) (bool, int64, int64) {
	eff := m.eff(now)
	n := min(slCounted(m.log, eff, m.window), m.limit) // with countRejected the log may hold more
	if m.admits(now, cost) {
		m.push(eff, cost)
		for range cost {
			m.admitted = append(m.admitted, eff)
		}
		return true, 0, m.limit - n - cost
	}
	if cost > m.limit {
		return false, int64(core.Never), m.limit - n
	}
	remaining := m.limit - n
	if m.countRejected {
		m.push(eff, cost)
		remaining = m.limit - min(slCounted(m.log, eff, m.window), m.limit)
	}
	// The first instant it passes is now or an instant an entry expires.
	cands := []int64{now}
	for _, e := range m.log {
		if e+m.window > now {
			cands = append(cands, e+m.window)
		}
	}
	slices.Sort(cands)
	for _, c := range cands {
		if m.admits(c, cost) {
			return false, c - now, remaining
		}
	}
	panic("unreachable")
}

// push logs cost entries at eff, forgetting those expired by then.
func (m *slModel) push(eff, cost int64) {
	m.latest = eff
	m.log = m.log[len(m.log)-int(slCounted(m.log, eff, m.window)):]
	for range cost {
		m.log = append(m.log, eff)
	}
}

// refund removes up to cost entries logged at taken.
func (m *slModel) refund(taken, cost int64) {
	for i := len(m.log) - 1; i >= 0 && cost > 0; i-- {
		if m.log[i] == taken {
			m.log = slices.Delete(m.log, i, i+1)
			cost--
		}
	}
}

func TestSlidingLogRandomSchedules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(2026, 2))
	ls := newWinLimiters(t)
	for sched := range 10000 {
		limit := 1 + rng.Int64N(8)
		window := time.Duration(1+rng.Int64N(10)) * time.Second
		if rng.IntN(5) == 0 {
			window = time.Duration(1 + rng.Int64N(20)) // nanoseconds
		}
		cr := rng.IntN(3) == 0
		l := ls.get(core.SlidingLog{Quota: limit, Window: window, CountRejected: cr})
		clk := ls.clk
		m := &slModel{limit: limit, window: int64(window), countRejected: cr}
		refunds := !cr && rng.IntN(2) == 0
		at := t0.Add(time.Duration(rng.Int64N(int64(3 * window))))
		newest := at
		var taken []core.Result
		for step := range 1 + rng.IntN(50) {
			switch rng.IntN(8) {
			case 0: // a stale caller
				at = newest.Add(-time.Duration(rng.Int64N(int64(window))))
			case 1:
			default:
				newest = newest.Add(time.Duration(rng.Int64N(int64(window)/3 + 1)))
				at = newest
			}
			if refunds && len(taken) > 0 && rng.IntN(10) == 0 {
				i := rng.IntN(len(taken))
				tk := taken[i]
				clk.Set(at)
				_, err := l.Refund(ctx, "k", tk)
				require.NoError(t, err)
				if at.Sub(tk.At()) < tk.ResetAfter { // else the take holds nothing: a no-op
					m.refund(tk.At().UnixNano(), tk.Cost)
				}
				// Again: refused, or (once the take holds nothing) a no-op;
				// the model is not refunded twice either way.
				if _, err = l.Refund(ctx, "k", tk); err != nil {
					require.ErrorIs(t, err, core.ErrRefunded, "a decision is refunded once")
				}
				taken = append(taken[:i], taken[i+1:]...)
				continue
			}
			cost := 1 + rng.Int64N(limit+1)
			r := winTake(t, l, clk, at, "k", cost)
			ok, retry, remaining := m.decide(at.UnixNano(), cost)
			winCheck(t, ok == r.Allowed && time.Duration(retry) == r.RetryAfter && remaining == r.Remaining,
				"schedule %d step %d: cost %d: got %+v, want allowed %v, retry %v, remaining %d", sched, step, cost, r, ok, time.Duration(retry), remaining)
			if ok {
				taken = append(taken, r)
				// No trailing window holds more than limit admitted units
				// (refunded units do not count: the check is for
				// schedules without refunds).
				winCheck(t, refunds || slCounted(m.admitted, m.admitted[len(m.admitted)-1], m.window) <= limit,
					"schedule %d step %d: over the limit", sched, step)
			} else if step%4 == 0 {
				winCheckRetry(t, l, clk, at, "k", cost, r)
			}
		}
	}
}
