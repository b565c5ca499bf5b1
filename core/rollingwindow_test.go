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

// rwStart is an instant aligned to every period of these tests.
var rwStart = t0.Truncate(24 * time.Hour).Add(24 * time.Hour)

func TestRollingWindowQuotaAndPeriodCap(t *testing.T) {
	t.Parallel()
	// 6 per rolling 4 s, recomputed every second, at most 3 per second.
	l, clk := winLimiter(t, core.RollingWindow{Quota: 6, Window: 4 * time.Second, Period: time.Second, PeriodCap: 3})
	ms := time.Millisecond
	steps := []struct {
		name      string
		at        time.Duration // from rwStart
		cost      int64
		allowed   bool
		remaining int64
		reset     time.Duration
		retry     time.Duration
	}{
		{"period 0", 100 * ms, 2, true, 1, 3900 * ms, 0},
		{"the period cap", 200 * ms, 2, false, 1, 3800 * ms, 800 * ms},
		{"up to the cap", 300 * ms, 1, true, 0, 3700 * ms, 0},
		{"period 1", 1500 * ms, 3, true, 0, 3500 * ms, 0},
		{"quota used up in periods 0 and 1", 2500 * ms, 1, false, 0, 2500 * ms, 1500 * ms},
		{"cost 3 waits for period 0 to leave", 2500 * ms, 3, false, 0, 2500 * ms, 1500 * ms},
		{"more than the cap", 2500 * ms, 4, false, 0, 2500 * ms, core.Never},
		{"period 4: period 0 left the window", 4000 * ms, 3, true, 0, 4000 * ms, 0},
		{"periods 1 and 4 hold 6", 4500 * ms, 1, false, 0, 3500 * ms, 500 * ms},
		{"period 6", 6000 * ms, 3, true, 0, 4000 * ms, 0},
		{"cost above PeriodCap never passes", 6000 * ms, 4, false, 0, 4000 * ms, core.Never},
		{"idle for a window", 20000 * ms, 3, true, 0, 4000 * ms, 0},
	}
	for _, s := range steps {
		r := winTake(t, l, clk, rwStart.Add(s.at), "k", s.cost)
		assert.Equal(t, s.allowed, r.Allowed, s.name)
		assert.Equal(t, s.remaining, r.Remaining, s.name)
		assert.Equal(t, s.reset, r.ResetAfter, s.name)
		assert.Equal(t, s.retry, r.RetryAfter, s.name)
		assert.Equal(t, int64(6), r.Quota, s.name)
		assert.Equal(t, 4*time.Second, r.Limits()[0].Window, s.name)
	}
}

func TestRollingWindowStraddle(t *testing.T) {
	t.Parallel()
	// "Rolling" means any 4 consecutive periods: the continuous 4 s from
	// 0.9 s to 4.9 s straddles 5 periods and admits twice the quota.
	l, clk := winLimiter(t, core.RollingWindow{Quota: 4, Window: 4 * time.Second, Period: time.Second})
	require.True(t, winTake(t, l, clk, rwStart.Add(900*time.Millisecond), "k", 4).Allowed)
	assert.False(t, winTake(t, l, clk, rwStart.Add(3999*time.Millisecond), "k", 1).Allowed)
	assert.True(t, winTake(t, l, clk, rwStart.Add(4*time.Second), "k", 4).Allowed)
}

func TestRollingWindowStaleNow(t *testing.T) {
	t.Parallel()
	l, clk := winLimiter(t, core.RollingWindow{Quota: 4, Window: 3 * time.Second, Period: time.Second, PeriodCap: 2})
	require.True(t, winTake(t, l, clk, rwStart.Add(500*time.Millisecond), "k", 2).Allowed)
	require.True(t, winTake(t, l, clk, rwStart.Add(3500*time.Millisecond), "k", 1).Allowed)
	// A caller still in period 0 is decided and counted in period 3, where
	// period 0 has left the window.
	stale := rwStart.Add(800 * time.Millisecond)
	r := winTake(t, l, clk, stale, "k", 1)
	require.True(t, r.Allowed)
	assert.Equal(t, int64(0), r.Remaining, "period 3 is at its cap")
	assert.Equal(t, 5200*time.Millisecond, r.ResetAfter)
	r = winTake(t, l, clk, stale, "k", 1)
	require.False(t, r.Allowed)
	assert.Equal(t, 3200*time.Millisecond, r.RetryAfter, "period 4")
	winCheckRetry(t, l, clk, stale, "k", 1, r)
}

func TestRollingWindowRefund(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l, clk := winLimiter(t, core.RollingWindow{Quota: 4, Window: 3 * time.Second, Period: time.Second, PeriodCap: 3})
	a := winTake(t, l, clk, rwStart, "k", 2)
	b := winTake(t, l, clk, rwStart.Add(time.Second), "k", 2)
	require.True(t, a.Allowed && b.Allowed)
	clk.Set(rwStart.Add(2 * time.Second))
	r, err := l.Refund(ctx, "k", a)
	require.NoError(t, err)
	assert.Equal(t, int64(1), r.Remaining, "2 left, 1 after a peek of 1")
	require.True(t, winTake(t, l, clk, rwStart.Add(2*time.Second), "k", 2).Allowed)
	// Periods 1 and 2 hold 2 each. At 3 s period 0 has left the window: a
	// second refund of it changes nothing.
	c := winTake(t, l, clk, rwStart.Add(3*time.Second), "k", 3)
	require.False(t, c.Allowed)
	clk.Set(rwStart.Add(3 * time.Second))
	r, err = l.Refund(ctx, "k", a)
	require.NoError(t, err)
	assert.Equal(t, int64(0), r.Remaining)
	// Refunding b (period 1, still kept) makes room.
	r, err = l.Refund(ctx, "k", b)
	require.NoError(t, err)
	assert.Equal(t, int64(1), r.Remaining)
	assert.True(t, winTake(t, l, clk, rwStart.Add(3*time.Second), "k", 2).Allowed)

	// A take and its refund at the same instant leave a fresh key.
	s, err := core.NewProbe(core.RollingWindow{Quota: 4, Window: 3 * time.Second, Period: time.Second})
	require.NoError(t, err)
	st := make([]int64, s.Words())
	now := rwStart.UnixNano()
	require.True(t, s.Take(st, now, 3, true).Allowed)
	s.Refund(st, now, now, 3)
	assert.Equal(t, make([]int64, s.Words()), st)
}

func TestRollingWindowNever(t *testing.T) {
	t.Parallel()
	l, clk := winLimiter(t, core.RollingWindow{Quota: 10, Window: time.Hour, Period: time.Minute})
	r := winTake(t, l, clk, t0, "k", 11)
	assert.False(t, r.Allowed)
	assert.Equal(t, core.Never, r.RetryAfter)
	assert.Equal(t, int64(10), r.Remaining)
	assert.Zero(t, r.ResetAfter)
	l, clk = winLimiter(t, core.RollingWindow{Quota: 10, Window: time.Hour, Period: time.Minute, PeriodCap: 3})
	require.True(t, winTake(t, l, clk, t0, "k", 1).Allowed)
	r = winTake(t, l, clk, t0, "k", 4)
	assert.Equal(t, core.Never, r.RetryAfter)
	assert.Equal(t, int64(2), r.Remaining)
}

func TestRollingWindowValidate(t *testing.T) {
	t.Parallel()
	winInvalid(t, map[string]core.Algorithm{
		"minimal":          core.RollingWindow{Quota: 1, Window: 1, Period: 1},
		"daily and hourly": core.RollingWindow{Quota: 10000, Window: 24 * time.Hour, Period: time.Hour, PeriodCap: 1000},
		"1024 periods":     core.RollingWindow{Quota: 5, Window: 1024 * time.Second, Period: time.Second},
		"cap = quota":      core.RollingWindow{Quota: 5, Window: time.Hour, Period: time.Minute, PeriodCap: 5},
		"36 years":         core.RollingWindow{Quota: 5, Window: time.Duration(1) << 60, Period: time.Duration(1) << 57},
	}, map[string]core.Algorithm{
		"zero":               core.RollingWindow{},
		"zero quota":         core.RollingWindow{Window: time.Hour, Period: time.Minute},
		"negative quota":     core.RollingWindow{Quota: -1, Window: time.Hour, Period: time.Minute},
		"zero window":        core.RollingWindow{Quota: 1, Period: time.Minute},
		"negative window":    core.RollingWindow{Quota: 1, Window: -time.Hour, Period: time.Minute},
		"window too long":    core.RollingWindow{Quota: 1, Window: time.Duration(1)<<61 + 1, Period: 1},
		"zero period":        core.RollingWindow{Quota: 1, Window: time.Hour},
		"negative period":    core.RollingWindow{Quota: 1, Window: time.Hour, Period: -time.Minute},
		"period > window":    core.RollingWindow{Quota: 1, Window: time.Minute, Period: time.Hour},
		"not a multiple":     core.RollingWindow{Quota: 1, Window: time.Hour, Period: 7 * time.Minute},
		"1025 periods":       core.RollingWindow{Quota: 1, Window: 1025 * time.Second, Period: time.Second},
		"negative cap":       core.RollingWindow{Quota: 5, Window: time.Hour, Period: time.Minute, PeriodCap: -1},
		"cap above quota":    core.RollingWindow{Quota: 5, Window: time.Hour, Period: time.Minute, PeriodCap: 6},
		"daily, 1 s periods": core.RollingWindow{Quota: 5, Window: 24 * time.Hour, Period: time.Second},
	})
	p, err := core.Single("daily", core.RollingWindow{Quota: 10000, Window: 24 * time.Hour, Period: time.Hour, PeriodCap: 1000})
	require.NoError(t, err)
	assert.Equal(t, 26, p.StateWords()) // the newest period, 24 counts, their sum
}

func TestRollingWindowIdleAt(t *testing.T) {
	t.Parallel()
	winCheckIdleAt(t, core.RollingWindow{Quota: 6, Window: 4 * time.Second, Period: time.Second}, 4*time.Second, 7, 1500)
	winCheckIdleAt(t, core.RollingWindow{Quota: 6, Window: 4 * time.Second, Period: time.Second, PeriodCap: 2}, 4*time.Second, 3, 500)
	winCheckIdleAt(t, core.RollingWindow{Quota: 3, Window: 6, Period: 2, PeriodCap: 2}, 6, 3, 500)
	winCheckIdleAt(t, core.RollingWindow{Quota: 3, Window: 5, Period: 5}, 5, 4, 500)
}

// rwModel is RollingWindow's definition over the units admitted per
// epoch-aligned period. A now older than the newest period admitted into is
// decided and counted in that period.
type rwModel struct {
	quota, pcap, period, n int64
	counts                 map[int64]int64
	last                   int64
	seen                   bool
}

func (m *rwModel) periodOf(now int64) int64 {
	p := now / m.period
	if now%m.period < 0 {
		p--
	}
	if m.seen {
		p = max(p, m.last)
	}
	return p
}

// sums returns the units of periods from−n+1 … p and those of period from,
// where periods after p count as empty.
func (m *rwModel) sums(from, p int64) (sum, cur int64) {
	for q := from - m.n + 1; q <= min(from, p); q++ {
		sum += m.counts[q]
	}
	if from <= p {
		cur = m.counts[from]
	}
	return sum, cur
}

// decide returns whether cost passes at now, its RetryAfter, Remaining and
// ResetAfter, and admits it when it passes.
func (m *rwModel) decide(now, cost int64) (ok bool, retry, remaining, reset int64) {
	p := m.periodOf(now)
	sum, cur := m.sums(p, p)
	remaining = max(0, min(m.quota-sum, m.pcap-cur))
	if cost <= m.quota-sum && cost <= m.pcap-cur {
		m.counts[p] += cost
		m.last, m.seen = p, true
		return true, 0, remaining - cost, (p+m.n)*m.period - now
	}
	for q := p; q > p-m.n; q-- {
		if m.counts[q] > 0 {
			reset = (q+m.n)*m.period - now
			break
		}
	}
	if cost > m.pcap {
		return false, int64(core.Never), remaining, reset
	}
	for k := int64(1); ; k++ {
		if s, _ := m.sums(p+k, p); cost <= m.quota-s {
			return false, (p+k)*m.period - now, remaining, reset
		}
	}
}

func TestRollingWindowRandomSchedules(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(2026, 5))
	ls := newWinLimiters(t)
	for sched := range 10000 {
		n := 1 + rng.Int64N(8)
		period := time.Duration(1+rng.Int64N(3)) * time.Second
		if rng.IntN(5) == 0 {
			period = time.Duration(1 + rng.Int64N(5)) // nanoseconds
		}
		quota := 1 + rng.Int64N(12)
		var pcap int64
		if rng.IntN(2) == 0 {
			pcap = 1 + rng.Int64N(quota)
		}
		a := core.RollingWindow{Quota: quota, Window: time.Duration(n) * period, Period: period, PeriodCap: pcap}
		l := ls.get(a)
		clk := ls.clk
		m := &rwModel{quota: quota, pcap: quota, period: int64(period), n: n, counts: map[int64]int64{}}
		if pcap > 0 {
			m.pcap = pcap
		}
		at := rwStart.Add(time.Duration(rng.Int64N(int64(a.Window))))
		newest := at
		for step := range 1 + rng.IntN(50) {
			switch rng.IntN(8) {
			case 0: // a stale caller
				at = newest.Add(-time.Duration(rng.Int64N(int64(a.Window))))
			case 1:
			default:
				newest = newest.Add(time.Duration(rng.Int64N(int64(period)*2 + 1)))
				at = newest
			}
			cost := 1 + rng.Int64N(m.pcap+1)
			r := winTake(t, l, clk, at, "k", cost)
			ok, retry, remaining, reset := m.decide(at.UnixNano(), cost)
			winCheck(t, ok == r.Allowed && time.Duration(retry) == r.RetryAfter && remaining == r.Remaining && time.Duration(reset) == r.ResetAfter,
				"schedule %d step %d: %+v: cost %d: got %+v, want allowed %v, retry %v, remaining %d, reset %v",
				sched, step, a, cost, r, ok, time.Duration(retry), remaining, time.Duration(reset))
			if !ok && step%4 == 0 {
				winCheckRetry(t, l, clk, at, "k", cost, r)
			}
		}
		// No n consecutive periods hold more than the quota, no period
		// more than its cap.
		for p, c := range m.counts {
			winCheck(t, c <= m.pcap, "schedule %d: period %d holds %d", sched, p, c)
			var sum int64
			for q := p; q < p+n; q++ {
				sum += m.counts[q]
			}
			winCheck(t, sum <= quota, "schedule %d: periods from %d hold %d", sched, p, sum)
		}
	}
}
