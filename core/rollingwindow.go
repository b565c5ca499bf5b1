package core

import (
	"fmt"
	"time"
)

// MaxRollingPeriods is the most periods a [RollingWindow]'s Window may span.
const MaxRollingPeriods = 1024

// RollingWindow admits Quota units per rolling Window, recomputed every
// Period: time is cut into periods aligned to the Unix epoch, and a request
// of cost c in period p is admitted when the units admitted in the n =
// Window/Period periods p−n+1 … p, plus c, are at most Quota, and — when
// PeriodCap is set — the units admitted in period p, plus c, are at most
// PeriodCap. For example Quota 10,000, Window 24 h, Period 1 h and PeriodCap
// 1,000: at most 10,000 in any 24 consecutive clock hours and at most 1,000
// in any one of them.
//
// "Rolling" means any n consecutive periods. A continuous interval of length
// Window that does not start on a period boundary overlaps n+1 periods and
// may see more than Quota: Quota plus the units of the period it only partly
// covers, so up to 2·Quota, or Quota + PeriodCap ([FixedWindow] is the case
// n = 1). Use a finer Period, or [SlidingLog], when that matters.
//
// It keeps n+2 words per key: the index of the newest period written, a
// ring of the n periods' counts, and their sum.
//
// The state changes only at period boundaries, so a denied request can pass
// at the first boundary at which both conditions hold: RetryAfter is the
// exact time until then, or [Never] when c exceeds Quota or PeriodCap.
// ResetAfter is the time until every admitted unit has left the window (the
// end of the window of the newest non-empty period); Remaining is the least
// of what the rolling window and the current period still grant.
//
// A caller whose now falls in a period older than the newest one written
// (it raced a newer caller) is decided and counted in the newest period,
// exactly as the newest caller would be.
//
// Refund gives cost back to the period of the taken instant while it is
// among the n kept periods, and does nothing otherwise. A take decided at a
// stale now is refunded from an older period than it was counted in, which
// credits less, never more.
type RollingWindow struct {
	// Quota is the most units admitted in any Window/Period consecutive
	// periods, ≥ 1.
	Quota int64
	// Window is the length of the rolling window: a multiple of Period of
	// at most MaxRollingPeriods periods, in (0, 36 years].
	Window time.Duration
	// Period is the granularity at which the window rolls, in (0, Window].
	Period time.Duration
	// PeriodCap bounds the units admitted in any single period, in
	// [1, Quota]; 0 means no bound beyond Quota.
	PeriodCap int64
}

// Validate reports whether r is usable.
func (r RollingWindow) Validate() error { _, err := r.compile(); return err }

func (r RollingWindow) value() Algorithm { return r }

func (r RollingWindow) compile() (stepper, error) {
	if r.Quota < 1 {
		return nil, fmt.Errorf("core: RollingWindow: quota %d must be ≥ 1: %w", r.Quota, ErrInvalidConfig)
	}
	if err := validWindow("RollingWindow", r.Window); err != nil {
		return nil, err
	}
	if r.Period <= 0 || r.Period > r.Window || r.Window%r.Period != 0 {
		return nil, fmt.Errorf("core: RollingWindow: period %v must divide window %v: %w", r.Period, r.Window, ErrInvalidConfig)
	}
	n := int64(r.Window / r.Period)
	if n > MaxRollingPeriods {
		return nil, fmt.Errorf("core: RollingWindow: window %v spans %d periods of %v, more than %d: %w",
			r.Window, n, r.Period, MaxRollingPeriods, ErrInvalidConfig)
	}
	if r.PeriodCap < 0 || r.PeriodCap > r.Quota {
		return nil, fmt.Errorf("core: RollingWindow: period cap %d must be in [0, quota %d]: %w", r.PeriodCap, r.Quota, ErrInvalidConfig)
	}
	pcap := r.PeriodCap
	if pcap == 0 {
		pcap = r.Quota
	}
	return &rollingWindowStep{limit: r.Quota, pcap: pcap, period: int64(r.Period), n: n}, nil
}

// rollingWindowStep keeps st[0], the index (since the epoch) of the newest
// period written, st[1:1+n], the counts of periods st[0]−n+1 … st[0],
// period p at st[1 + p mod n], and st[1+n], the sum of those counts (the
// ring's total), so that the window's units at the newest period, and the
// cost of forgetting the key, are known without summing n counts. All
// counts 0 is a fresh key, whatever st[0].
type rollingWindowStep struct {
	noPenalty
	limit, pcap, period, n int64
}

func (r *rollingWindowStep) words() int { return int(r.n) + 2 }

func (r *rollingWindowStep) quota() (int64, time.Duration) {
	return r.limit, time.Duration(r.n * r.period)
}

// bucket returns the count of period p, which must be among the kept ones.
func (r *rollingWindowStep) bucket(st []int64, p int64) *int64 {
	m := p % r.n
	if m < 0 {
		m += r.n
	}
	return &st[1+m]
}

// total returns the ring's total (counts are never negative).
func (r *rollingWindowStep) total(st []int64) *int64 { return &st[1+r.n] }

func (r *rollingWindowStep) empty(st []int64) bool { return *r.total(st) == 0 }

// view returns the period p a request at now is decided in (never older
// than the newest written, unless the state is empty), the first kept
// period still in p's window, the units in that window and those of p.
func (r *rollingWindowStep) view(st []int64, now int64) (p, first, sum, cur int64) {
	idx := st[0]
	p = spanIndex(now, r.period)
	if p < idx && !r.empty(st) {
		p = idx
	}
	first = max(p, idx) - r.n + 1
	if p <= idx {
		sum = *r.total(st) // the whole ring is in the window
	} else {
		for q := first; q <= idx; q++ {
			sum += *r.bucket(st, q)
		}
	}
	if p == idx {
		cur = *r.bucket(st, idx)
	}
	return p, first, sum, cur
}

// newestEnd returns the instant the newest non-empty kept period from first
// on leaves the window, or 0 when there is none.
func (r *rollingWindowStep) newestEnd(st []int64, first int64) int64 {
	for q := st[0]; q >= first; q-- {
		if *r.bucket(st, q) > 0 {
			return (q + r.n) * r.period
		}
	}
	return 0
}

func (r *rollingWindowStep) take(st []int64, now, cost int64, commit bool) outcome {
	p, first, sum, cur := r.view(st, now)
	if cost > r.limit-sum || cost > r.pcap-cur {
		o := outcome{remaining: max(min(r.limit-sum, r.pcap-cur), 0)}
		if end := r.newestEnd(st, first); end != 0 {
			o.resetAfter = nonNeg(end - now)
		}
		if cost > r.pcap {
			o.retryAfter = int64(Never)
		} else {
			o.retryAfter = r.firstAdmit(st, p, sum, cost) - now
		}
		return o
	}
	if cost == 0 {
		// The window as it stands: its newest units leave it at newestEnd.
		o := outcome{allowed: true, remaining: min(r.limit-sum, r.pcap-cur)}
		if end := r.newestEnd(st, first); end != 0 {
			o.resetAfter = nonNeg(end - now)
		}
		return o
	}
	if commit {
		idx, total := st[0], r.total(st)
		if p-idx >= r.n || p < idx {
			clear(st[1:])
		} else {
			for q := idx + 1; q <= p; q++ {
				b := r.bucket(st, q)
				*total -= *b
				*b = 0
			}
		}
		st[0] = p
		*r.bucket(st, p) = cur + cost
		*total += cost
	}
	return outcome{
		allowed:    true,
		remaining:  min(r.limit-sum, r.pcap-cur) - cost,
		resetAfter: (p+r.n)*r.period - now,
	}
}

// firstAdmit returns the first period boundary after period p at which cost
// (≤ pcap) is admitted if nothing else is taken: a new period's count is 0,
// and the window's sum drops as its oldest periods leave it.
func (r *rollingWindowStep) firstAdmit(st []int64, p, sum, cost int64) int64 {
	idx := st[0]
	for k := int64(1); k < r.n; k++ {
		// Period p−n+k leaves the window at the boundary p+k.
		if q := p - r.n + k; q > idx-r.n && q <= idx {
			sum -= *r.bucket(st, q)
		}
		if cost <= r.limit-sum {
			return (p + k) * r.period
		}
	}
	return (p + r.n) * r.period
}

func (r *rollingWindowStep) refund(st []int64, _, taken, _, cost int64) {
	t, idx := spanIndex(taken, r.period), st[0]
	if t > idx || t <= idx-r.n {
		return
	}
	b := r.bucket(st, t)
	if *b <= 0 {
		return
	}
	give := min(cost, *b)
	*b -= give
	*r.total(st) -= give
	if r.empty(st) {
		st[0] = 0
	}
}

func (r *rollingWindowStep) idleAt(st []int64) int64 {
	return r.newestEnd(st, st[0]-r.n+1)
}
