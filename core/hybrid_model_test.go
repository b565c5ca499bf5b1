package core_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/require"
)

// hybridModel is Hybrid's documented semantics, written as directly as
// possible: a fixed window anchored at the first request while the quota
// lasts; once it is spent, a linear bucket of q tokens refilling one per I
// that holds exactly one token at the window's end (and less before it);
// back to a key never seen once that bucket is full. Tokens are kept
// scaled by I (level = tokens·I at the instant ref), so the model is exact
// in integers.
type hybridModel struct {
	q, w, iv int64
	smooth   bool
	start, n int64 // bursty: window start and count (n 0: no window)
	ref, lvl int64 // smooth: the bucket held lvl/iv tokens at ref
}

func (m *hybridModel) level(now int64) int64 { return m.lvl + (now - m.ref) }

// decide takes cost at now (non-decreasing) and returns the outcome.
func (m *hybridModel) decide(now, cost int64) core.ProbeOutcome {
	if m.smooth && m.level(now) >= m.q*m.iv {
		*m = hybridModel{q: m.q, w: m.w, iv: m.iv} // full: a key never seen
	}
	if !m.smooth {
		if m.n == 0 || now >= m.start+m.w {
			m.start, m.n = now, 0
		}
		end := m.start + m.w
		reset := end - now
		if m.n == 0 {
			reset = 0
		}
		if cost > m.q {
			return core.ProbeOutcome{Remaining: m.q - m.n, ResetAfter: reset, RetryAfter: int64(core.Never)}
		}
		if m.n+cost > m.q {
			return core.ProbeOutcome{Remaining: m.q - m.n, ResetAfter: reset, RetryAfter: end - now}
		}
		m.n += cost
		if m.n < m.q {
			return core.ProbeOutcome{Allowed: true, Remaining: m.q - m.n, ResetAfter: end - now}
		}
		// Spent: one token at the window's end.
		m.smooth, m.ref, m.lvl = true, end, m.iv
		return core.ProbeOutcome{Allowed: true, ResetAfter: m.ref + m.q*m.iv - m.lvl - now}
	}
	lvl := m.level(now)
	full := m.ref + m.q*m.iv - m.lvl // the instant the bucket is full
	if cost > m.q {
		return core.ProbeOutcome{Remaining: max(lvl, 0) / m.iv, ResetAfter: full - now, RetryAfter: int64(core.Never)}
	}
	if lvl < cost*m.iv {
		return core.ProbeOutcome{Remaining: max(lvl, 0) / m.iv, ResetAfter: full - now, RetryAfter: cost*m.iv - lvl}
	}
	m.ref, m.lvl = now, lvl-cost*m.iv
	return core.ProbeOutcome{Allowed: true, Remaining: m.lvl / m.iv, ResetAfter: m.q*m.iv - m.lvl}
}

// Hybrid decides every schedule as its documented model, at quotas 1 to 5
// (windows that are whole multiples of the quota, so I is exact).
func TestHybridMatchesItsModel(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(61, 62))
	for q := int64(1); q <= 5; q++ {
		w := q * int64(6*time.Second)
		for sched := 0; sched < 300; sched++ {
			clk := coretest.NewClock(t0)
			l := lbhSingle(t, clk, core.Hybrid{Quota: q, Window: time.Duration(w)})
			m := &hybridModel{q: q, w: w, iv: w / q}
			now := t0.UnixNano()
			for step := 0; step < 60; step++ {
				switch rng.IntN(4) {
				case 0:
				case 1:
					now += rng.Int64N(w / q)
				default:
					now += rng.Int64N(2 * w)
				}
				clk.Set(time.Unix(0, now))
				cost := 1 + rng.Int64N(q+1)
				r := lbhTake(t, l, "k", cost)
				want := m.decide(now, cost)
				got := core.ProbeOutcome{Allowed: r.Allowed, Remaining: r.Remaining, ResetAfter: int64(r.ResetAfter), RetryAfter: int64(r.RetryAfter)}
				require.Equal(t, want, got, "quota %d schedule %d step %d: cost %d at %v", q, sched, step, cost, time.Duration(now-t0.UnixNano()))
			}
		}
	}
}

// A client that keeps pushing (retrying exactly when told) gets Quota per
// Window: 10·Quota in 10 windows, for every quota, 1 included.
func TestHybridPushingClientGetsQuotaPerWindow(t *testing.T) {
	t.Parallel()
	for q := int64(1); q <= 5; q++ {
		w := time.Duration(q) * 6 * time.Second
		clk := coretest.NewClock(t0)
		l := lbhSingle(t, clk, core.Hybrid{Quota: q, Window: w})
		admitted := int64(0)
		for i := 0; i < 1000 && clk.Now().Before(t0.Add(10*w)); i++ {
			r := lbhTake(t, l, "k", 1)
			if r.Allowed {
				admitted++
				continue
			}
			require.Positive(t, r.RetryAfter)
			clk.Advance(r.RetryAfter)
		}
		require.Equal(t, 10*q, admitted, "quota %d: admitted in 10 windows", q)
	}
}
