package core_test

import (
	"context"
	"fmt"
	"math/big"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
)

// Independent models of the algorithms, written from their documentation
// (DESIGN.md §4 and the package doc), not from their code: each decides a
// take at an instant and reports what a Result's single limit says.

type modelOutcome struct {
	allowed                       bool
	remaining                     int64
	resetAfter, retryAfter, delay int64
}

type model interface {
	// take decides cost at now, and records it when admitted.
	take(now, cost int64) modelOutcome
	// report is the state as it stands at now (cost 0): what a limit that
	// admitted reports in a decision another limit denied.
	report(now int64) modelOutcome
	clone() model
}

const never = int64(core.Never)

// floorDivT is ⌊a/b⌋ for b > 0.
func floorDivT(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// gcraModel is GCRA, and LeakyBucket when shaping (free ≥ 0): TAT' =
// max(TAT, now) + c·I, admitted when TAT' − now ≤ burst·I.
type gcraModel struct {
	iv, burst, free int64 // free: (NoDelay−1)⁺·I for LeakyBucket, -1 for GCRA
	tat             int64
}

func (m *gcraModel) clone() model { c := *m; return &c }

func (m *gcraModel) report(now int64) modelOutcome {
	debt := max(m.tat-now, 0)
	return modelOutcome{allowed: true, remaining: (m.burst*m.iv - debt) / m.iv, resetAfter: debt}
}

func (m *gcraModel) take(now, cost int64) modelOutcome {
	tol := m.burst * m.iv
	if cost > m.burst {
		debt := max(m.tat-now, 0)
		return modelOutcome{remaining: max(tol-debt, 0) / m.iv, resetAfter: debt, retryAfter: never}
	}
	start := max(m.tat, now)
	next := start + cost*m.iv
	if next-now > tol {
		debt := max(m.tat-now, 0)
		return modelOutcome{remaining: max(tol-debt, 0) / m.iv, resetAfter: debt, retryAfter: next - now - tol}
	}
	o := modelOutcome{allowed: true, remaining: (tol - (next - now)) / m.iv, resetAfter: next - now}
	if m.free >= 0 {
		o.delay = max(0, start-now-m.free)
	}
	m.tat = next
	return o
}

// fixedModel is FixedWindow: aligned to the epoch or anchored at a key's
// first admitted request; a stale caller counts in the current window.
type fixedModel struct {
	quota, window int64
	anchored      bool
	count, start  int64
	started       bool
}

func (m *fixedModel) clone() model { c := *m; return &c }

func (m *fixedModel) report(now int64) modelOutcome {
	count := m.count
	if !m.started || now-m.start >= m.window {
		count = 0
	}
	o := modelOutcome{allowed: true, remaining: m.quota - count}
	if count > 0 {
		o.resetAfter = m.start + m.window - now
	}
	return o
}

func (m *fixedModel) take(now, cost int64) modelOutcome {
	count, started := m.count, m.started
	if started && now-m.start >= m.window {
		count, started = 0, false // the window has ended (a denial changes nothing)
	}
	start := m.start
	if !started {
		if m.anchored {
			start = now
		} else {
			start = now - now%m.window
		}
	}
	end := start + m.window
	if cost > m.quota-count {
		o := modelOutcome{remaining: m.quota - count, retryAfter: end - now}
		if count > 0 {
			o.resetAfter = end - now
		}
		if cost > m.quota {
			o.retryAfter = never
		}
		return o
	}
	m.count = count + cost
	m.start, m.started = start, true
	return modelOutcome{allowed: true, remaining: m.quota - m.count, resetAfter: end - now}
}

// slidingLogModel is SlidingLog: every admitted unit (and, with
// CountRejected, every denied one) is logged at the latest instant seen;
// an entry at t counts while now − t < W.
type slidingLogModel struct {
	quota, window int64
	rejected      bool
	log           []int64
	latest        int64
}

func (m *slidingLogModel) counted(at int64) []int64 {
	var c []int64
	for _, t := range m.log {
		if at-t < m.window {
			c = append(c, t)
		}
	}
	sort.Slice(c, func(i, j int) bool { return c[i] < c[j] })
	return c
}

func (m *slidingLogModel) report(now int64) modelOutcome {
	return m.state(now, m.counted(max(now, m.latest)), 0)
}

func (m *slidingLogModel) state(now int64, c []int64, cost int64) modelOutcome {
	o := modelOutcome{remaining: max(m.quota-int64(len(c)), 0)}
	if len(c) > 0 {
		o.resetAfter = c[len(c)-1] + m.window - now
	}
	switch n := int64(len(c)); {
	case cost > m.quota:
		o.retryAfter = never
	case n+cost <= m.quota:
		o.allowed = true
	default:
		o.retryAfter = c[n+cost-m.quota-1] + m.window - now
	}
	return o
}

func (m *slidingLogModel) take(now, cost int64) modelOutcome {
	at := max(now, m.latest)
	c := m.counted(at)
	if int64(len(c))+cost <= m.quota {
		m.latest = at
		for range cost {
			m.log = append(m.log, at)
		}
		c = m.counted(at)
		o := m.state(now, c, 0)
		return modelOutcome{allowed: true, remaining: o.remaining, resetAfter: o.resetAfter}
	}
	return m.state(now, c, cost)
}

func (m *slidingLogModel) clone() model {
	c := *m
	c.log = append([]int64(nil), m.log...)
	return &c
}

func (m *slidingLogModel) penalise(now, cost int64) modelOutcome {
	at := max(now, m.latest)
	if m.rejected {
		m.latest = at
		for range cost {
			m.log = append(m.log, at)
		}
	}
	return m.state(now, m.counted(at), cost)
}

// slidingWindowModel is SlidingWindow: estimate prev·(W − elapsed)/W +
// curr, compared exactly; windows aligned to the epoch.
type slidingWindowModel struct {
	quota, window   int64
	prev, curr, win int64 // win: index of the current window
}

// counts returns prev and curr as seen in window w.
func (m *slidingWindowModel) counts(w int64) (int64, int64) {
	switch {
	case w == m.win:
		return m.prev, m.curr
	case w == m.win+1:
		return m.curr, 0
	}
	return 0, 0
}

// admits reports whether cost passes at instant t (in window w ≥ m.win,
// t ≥ the window's start) given the counts.
func (m *slidingWindowModel) admits(t, cost int64) bool {
	w := floorDivT(t, m.window)
	prev, curr := m.counts(w)
	rest := (w+1)*m.window - t
	// prev·rest/W + curr + cost ≤ quota  ⇔  prev·rest ≤ (quota − curr − cost)·W
	room := m.quota - curr - cost
	if room < 0 {
		return false
	}
	l := new(big.Int).Mul(big.NewInt(prev), big.NewInt(rest))
	r := new(big.Int).Mul(big.NewInt(room), big.NewInt(m.window))
	return l.Cmp(r) <= 0
}

func (m *slidingWindowModel) estimateCeil(t int64) int64 {
	w := floorDivT(t, m.window)
	prev, curr := m.counts(w)
	rest := (w+1)*m.window - t
	l := new(big.Int).Mul(big.NewInt(prev), big.NewInt(rest))
	q, r := new(big.Int).QuoRem(l, big.NewInt(m.window), new(big.Int))
	e := q.Int64()
	if r.Sign() > 0 {
		e++
	}
	return e + curr
}

func (m *slidingWindowModel) clone() model { c := *m; return &c }

func (m *slidingWindowModel) report(now int64) modelOutcome {
	at := now
	if (m.prev != 0 || m.curr != 0) && at < m.win*m.window {
		at = m.win * m.window
	}
	w := floorDivT(at, m.window)
	prev, curr := m.counts(w)
	o := modelOutcome{allowed: true, remaining: m.quota - m.estimateCeil(at)}
	switch {
	case curr > 0:
		o.resetAfter = (w+2)*m.window - now
	case prev > 0:
		o.resetAfter = (w+1)*m.window - now
	}
	return o
}

func (m *slidingWindowModel) take(now, cost int64) modelOutcome {
	fresh := m.prev == 0 && m.curr == 0
	at := now
	if !fresh && at < m.win*m.window {
		at = m.win * m.window // a stale caller is decided as of the window's start
	}
	w := floorDivT(at, m.window)
	if fresh {
		m.win = w
	}
	est := m.estimateCeil(at)
	if m.admits(at, cost) {
		prev, curr := m.counts(w)
		m.prev, m.curr, m.win = prev, curr+cost, w
		if m.prev == 0 && m.curr == 0 {
			m.win = 0
		}
		return modelOutcome{allowed: true, remaining: m.quota - est - cost, resetAfter: (w+2)*m.window - now}
	}
	o := modelOutcome{remaining: max(m.quota-est, 0)}
	prev, curr := m.counts(w)
	switch {
	case curr > 0:
		o.resetAfter = (w+2)*m.window - now
	case prev > 0:
		o.resetAfter = (w+1)*m.window - now
	}
	if cost > m.quota {
		o.retryAfter = never
		return o
	}
	// The first instant it passes: search the two windows ahead.
	lo, hi := at, (w+2)*m.window
	for lo < hi {
		mid := lo + (hi-lo)/2
		if m.admitsMonotone(at, mid, cost) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	o.retryAfter = lo - now
	return o
}

// admitsMonotone is admits at t for t ≥ at, true from the first instant
// it holds on (the estimate only falls as time passes).
func (m *slidingWindowModel) admitsMonotone(at, t, cost int64) bool { return m.admits(t, cost) }

// rollingModel is RollingWindow: periods aligned to the epoch; a stale
// caller is counted in the newest period written.
type rollingModel struct {
	quota, pcap, period, n int64
	counts                 map[int64]int64
	newest                 int64
}

func (m *rollingModel) sum(p int64) int64 {
	var s int64
	for q, c := range m.counts {
		if q > p-m.n && q <= p {
			s += c
		}
	}
	return s
}

func (m *rollingModel) clone() model {
	c := *m
	c.counts = map[int64]int64{}
	for k, v := range m.counts {
		c.counts[k] = v
	}
	return &c
}

func (m *rollingModel) report(now int64) modelOutcome {
	p := floorDivT(now, m.period)
	if len(m.counts) > 0 && p < m.newest {
		p = m.newest
	}
	sum, cur := m.sum(p), m.counts[p]
	o := modelOutcome{allowed: true, remaining: min(m.quota-sum, m.pcap-cur)}
	var newest int64 = -1 << 62
	for q, c := range m.counts {
		if c > 0 && q > p-m.n && q > newest {
			newest = q
		}
	}
	if newest > -1<<62 {
		o.resetAfter = max((newest+m.n)*m.period-now, 0)
	}
	return o
}

func (m *rollingModel) take(now, cost int64) modelOutcome {
	p := floorDivT(now, m.period)
	if len(m.counts) > 0 && p < m.newest {
		p = m.newest
	}
	sum, cur := m.sum(p), m.counts[p]
	if cost <= m.quota-sum && cost <= m.pcap-cur {
		if m.counts == nil {
			m.counts = map[int64]int64{}
		}
		m.counts[p] += cost
		m.newest = p
		for q := range m.counts {
			if q <= p-m.n {
				delete(m.counts, q)
			}
		}
		return modelOutcome{allowed: true, remaining: min(m.quota-sum, m.pcap-cur) - cost, resetAfter: (p+m.n)*m.period - now}
	}
	o := modelOutcome{remaining: max(min(m.quota-sum, m.pcap-cur), 0)}
	var newestNonEmpty int64 = -1 << 62
	for q, c := range m.counts {
		if c > 0 && q > p-m.n && q > newestNonEmpty {
			newestNonEmpty = q
		}
	}
	if newestNonEmpty > -1<<62 {
		o.resetAfter = max((newestNonEmpty+m.n)*m.period-now, 0)
	}
	if cost > m.quota || cost > m.pcap {
		o.retryAfter = never
		return o
	}
	for k := int64(1); ; k++ {
		if cost <= m.quota-m.sum(p+k) {
			o.retryAfter = (p+k)*m.period - now
			return o
		}
	}
}

// backoffModel is Backoff as its documentation tells it: failures counted
// in a window anchored at the first failure counted in it; the failure that
// reaches beyond Free and every later one in the window lock the key for
// Base·2^k (at most Max), k the lockouts since the key was forgiven;
// Forgive after the latest failure (or the window's end while no lockout
// was set) makes the key fresh. A take of cost c is c failures at once.
type backoffModel struct {
	free, window, base, max, forgive int64
	st                               backoffState
}

type backoffState struct {
	seen                          bool
	latest, start, count, k, lock int64 // lock: the lock's end
}

func (m *backoffModel) freshened(s backoffState, t int64) backoffState {
	if !s.seen {
		return s
	}
	if t-s.latest >= m.forgive || (s.k == 0 && t >= s.start+m.window) {
		return backoffState{}
	}
	return s
}

// fail applies one failure at t (≥ latest) to s: whether it passes, and
// the state after it.
func (m *backoffModel) fail(s backoffState, t int64) (bool, backoffState) {
	s = m.freshened(s, t)
	if s.seen && t < s.lock {
		return false, s
	}
	if !s.seen || t >= s.start+m.window {
		s.start, s.count = t, 0
	}
	s.seen = true
	s.count++
	s.latest = t
	if s.count > m.free {
		l := m.base
		for i := int64(0); i < s.k && l < m.max; i++ {
			l *= 2
		}
		s.lock = t + min(l, m.max)
		s.k++
	}
	return true, s
}

func (m *backoffModel) passes(s backoffState, t, cost int64) (bool, backoffState) {
	for range cost {
		var ok bool
		if ok, s = m.fail(s, t); !ok {
			return false, s
		}
	}
	return true, s
}

func (m *backoffModel) report2(s backoffState, at, now int64) (remaining, reset int64) {
	s = m.freshened(s, at)
	if !s.seen {
		return m.free, 0
	}
	if at < s.lock {
		remaining = 0
	} else if at >= s.start+m.window {
		remaining = m.free
	} else {
		remaining = max(m.free-s.count, 0)
	}
	fresh := s.latest + m.forgive
	if s.k == 0 {
		fresh = min(fresh, s.start+m.window)
	}
	return remaining, max(fresh-now, 0)
}

func (m *backoffModel) clone() model { c := *m; return &c }

func (m *backoffModel) report(now int64) modelOutcome {
	at := now
	if m.st.seen {
		at = max(now, m.st.latest)
	}
	rem, reset := m.report2(m.st, at, now)
	return modelOutcome{allowed: true, remaining: rem, resetAfter: reset}
}

func (m *backoffModel) take(now, cost int64) modelOutcome {
	at := now
	if m.st.seen {
		at = max(now, m.st.latest)
	}
	if cost <= m.free {
		if ok, s := m.passes(m.st, at, cost); ok {
			m.st = s
			rem, reset := m.report2(s, at, now)
			return modelOutcome{allowed: true, remaining: rem, resetAfter: reset}
		}
	}
	rem, reset := m.report2(m.st, at, now)
	o := modelOutcome{remaining: rem, resetAfter: reset, retryAfter: never}
	if cost > m.free {
		return o
	}
	// The state changes only at these instants: the first from which c
	// failures pass is among them.
	s := m.freshened(m.st, at)
	cands := []int64{s.lock, s.start + m.window, s.latest + m.forgive}
	sort.Slice(cands, func(i, j int) bool { return cands[i] < cands[j] })
	for _, t := range cands {
		if t > at {
			if ok, _ := m.passes(m.st, t, cost); ok {
				o.retryAfter = t - now
				return o
			}
		}
	}
	panic("backoff model: no instant passes")
}

// hybridDocModel is Hybrid: a window anchored at the key's first request in
// which Quota pass; spending it switches to a GCRA of I = ⌈W/Q⌉, burst Q,
// with TAT = window end + (Q−1)·I; back to a fresh key once TAT ≤ now.
type hybridDocModel struct {
	quota, window, iv int64
	smooth            bool
	start, count, tat int64
}

func (m *hybridDocModel) clone() model { c := *m; return &c }

// linear is the smooth mode's GCRA, on the key's TAT.
func (m *hybridDocModel) linear() *gcraModel {
	return &gcraModel{iv: m.iv, burst: m.quota, free: -1, tat: m.tat}
}

func (m *hybridDocModel) report(now int64) modelOutcome {
	if m.smooth && m.tat > now {
		return m.linear().report(now)
	}
	count := m.count
	if m.smooth || count == 0 || now-m.start >= m.window {
		count = 0
	}
	o := modelOutcome{allowed: true, remaining: m.quota - count}
	if count > 0 {
		o.resetAfter = m.start + m.window - now
	}
	return o
}

func (m *hybridDocModel) take(now, cost int64) modelOutcome {
	tol := m.quota * m.iv
	if m.smooth && m.tat > now {
		g := m.linear()
		o := g.take(now, cost)
		m.tat = g.tat
		return o
	}
	count := m.count
	if m.smooth || count == 0 || now-m.start >= m.window {
		count = 0
	}
	start := m.start
	if count == 0 {
		start = now
	}
	end := start + m.window
	if cost > m.quota-count {
		o := modelOutcome{remaining: m.quota - count, retryAfter: end - now}
		if count > 0 {
			o.resetAfter = end - now
		}
		if cost > m.quota {
			o.retryAfter = never
		}
		return o
	}
	m.smooth, m.start, m.count = false, start, count+cost
	if m.count == m.quota {
		m.smooth, m.tat = true, end+(m.quota-1)*m.iv
		return modelOutcome{allowed: true, remaining: max(tol-(m.tat-now), 0) / m.iv, resetAfter: m.tat - now}
	}
	return modelOutcome{allowed: true, remaining: m.quota - m.count, resetAfter: end - now}
}

func modelOf(a core.Algorithm) model {
	switch a := a.(type) {
	case core.GCRA:
		a = a.WithDefaults()
		return &gcraModel{iv: int64(a.Rate.Interval()), burst: a.Burst, free: -1}
	case core.LeakyBucket:
		a = a.WithDefaults()
		iv := int64(a.Rate.Interval())
		return &gcraModel{iv: iv, burst: a.Capacity, free: max(a.NoDelay-1, 0) * iv}
	case core.FixedWindow:
		return &fixedModel{quota: a.Quota, window: int64(a.Window), anchored: a.Anchored}
	case core.SlidingLog:
		return &slidingLogModel{quota: a.Quota, window: int64(a.Window), rejected: a.CountRejected}
	case core.SlidingWindow:
		return &slidingWindowModel{quota: a.Quota, window: int64(a.Window)}
	case core.RollingWindow:
		pc := a.PeriodCap
		if pc == 0 {
			pc = a.Quota
		}
		return &rollingModel{quota: a.Quota, pcap: pc, period: int64(a.Period), n: int64(a.Window / a.Period)}
	case core.Backoff:
		b := a.WithDefaults()
		return &backoffModel{free: b.Free, window: int64(b.Window), base: int64(b.Base), max: int64(b.Max), forgive: int64(b.Forgive)}
	case core.Hybrid:
		return &hybridDocModel{quota: a.Quota, window: int64(a.Window), iv: int64(core.Per(a.Quota, a.Window).Interval())}
	}
	return nil
}

// modelAlgorithm draws a configuration a model decides: moderate
// magnitudes, so that the models' plain arithmetic cannot overflow.
func modelAlgorithm(rng *rand.Rand) core.Algorithm {
	dur := func() time.Duration {
		return []time.Duration{1, 3, 1000, 7919, time.Millisecond, time.Second, time.Hour, 24 * time.Hour}[rng.IntN(8)] *
			time.Duration(1+rng.IntN(9))
	}
	n := func() int64 { return 1 + rng.Int64N(9) }
	for {
		var a core.Algorithm
		switch rng.IntN(9) {
		case 0:
			a = core.GCRA{Rate: core.Per(n(), dur()), Burst: n() * int64(rng.IntN(2))}
		case 1:
			c := n()
			a = core.LeakyBucket{Rate: core.Per(n(), dur()), Capacity: c, NoDelay: rng.Int64N(c + 1)}
		case 2:
			a = core.FixedWindow{Quota: n(), Window: dur(), Anchored: rng.IntN(2) == 0}
		case 3:
			a = core.SlidingLog{Quota: n(), Window: dur(), CountRejected: rng.IntN(2) == 0}
		case 4:
			a = core.SlidingWindow{Quota: n(), Window: dur()}
		case 5:
			p := dur()
			q := n()
			var pc int64
			if rng.IntN(2) == 0 {
				pc = 1 + rng.Int64N(q)
			}
			a = core.RollingWindow{Quota: q, Window: p * time.Duration(1+rng.IntN(5)), Period: p, PeriodCap: pc}
		case 6, 7:
			base := dur()
			mx := base << rng.IntN(4)
			a = core.Backoff{Free: 1 + rng.Int64N(4), Window: dur(), Base: base, Max: mx, Forgive: mx + dur()*time.Duration(rng.IntN(3))}
		default:
			a = core.Hybrid{Quota: n(), Window: dur()}
		}
		if a.Validate() == nil {
			return a
		}
	}
}

// policyModel decides a policy of modelled limits as the documentation
// tells: admitted only if every limit admits (then every limit records
// it); on a denial, nothing is recorded but by a SlidingLog counting
// rejected attempts (unless some limit can never grant the cost), and a
// limit that admitted reports its state as it stands.
type policyModel []model

func (pm policyModel) take(now, cost int64) []modelOutcome {
	outs := make([]modelOutcome, len(pm))
	all, nev := true, false
	for i, m := range pm {
		outs[i] = m.clone().take(now, cost)
		all = all && outs[i].allowed
		nev = nev || (!outs[i].allowed && outs[i].retryAfter == never)
	}
	if all {
		for i, m := range pm {
			outs[i] = m.take(now, cost)
		}
		return outs
	}
	for i, m := range pm {
		if sl, ok := m.(*slidingLogModel); ok && sl.rejected && !nev {
			outs[i] = sl.penalise(now, cost)
			continue
		}
		if outs[i].allowed {
			outs[i] = m.report(now)
		}
	}
	return outs
}

// TestAttackAlgorithmsMatchModels replays random traces (costs up to twice
// the quota, callers up to a scale late) on the memory store and on
// independent models, policies of one to three limits, and requires the
// same Allowed, Remaining, ResetAfter, RetryAfter and Delay for every limit
// at every take, and the same binding limit.
func TestAttackAlgorithmsMatchModels(t *testing.T) {
	t.Parallel()
	matchModels(t, 31, traceCount(500))
}

func matchModels(t *testing.T, seed uint64, configs int) {
	rng := rand.New(rand.NewPCG(seed, 32))
	ctx := context.Background()
	for c := 0; c < configs; c++ {
		n := 1 + rng.IntN(3)
		if rng.IntN(2) == 0 {
			n = 1
		}
		var ls []core.Limit
		var pm policyModel
		var scale, quota int64 = 1 << 62, 1
		for i := 0; i < n; i++ {
			a := modelAlgorithm(rng)
			ls = append(ls, core.Limit{Name: fmt.Sprint("l", i), Algorithm: a})
			pm = append(pm, modelOf(a))
			scale = min(scale, max(int64(scaleOf(a)), 1))
			quota = max(quota, quotaOf(a))
		}
		start := t0.Add(time.Duration(rng.Int64N(int64(24 * time.Hour))))
		clk := coretest.NewClock(start)
		l := newLimiter(t, clk, ls...)
		latest := start.UnixNano()
		var hist []string
		for i := 0; i < 40; i++ {
			d := traceStep(rng, scale, 4*scale)
			now := latest + d
			latest = max(latest, now)
			cost := int64(1)
			if rng.IntN(3) == 0 {
				cost = 1 + rng.Int64N(2*quota)
			}
			clk.Set(time.Unix(0, now))
			r, err := l.AllowN(ctx, "k", cost)
			if err != nil {
				t.Fatal(err)
			}
			want := pm.take(now, cost)
			var got []modelOutcome
			for _, lr := range r.Limits() {
				got = append(got, modelOutcome{lr.Allowed, lr.Remaining, int64(lr.ResetAfter), int64(lr.RetryAfter), int64(lr.Delay)})
			}
			hist = append(hist, fmt.Sprintf("  +%v cost %d: %v %+v", time.Duration(now-start.UnixNano()), cost, r.Allowed, got))
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%v: step %d:\n%s\nwant %+v", ls, i, joinLines(hist), want)
			}
			// The binding limit: for a denial the denying limit with the
			// longest RetryAfter, else the one with the least Remaining.
			b := 0
			for i, o := range want {
				if r.Allowed && o.remaining < want[b].remaining ||
					!r.Allowed && !o.allowed && (want[b].allowed || o.retryAfter > want[b].retryAfter) {
					b = i
				}
			}
			if r.Name != ls[b].Name {
				t.Fatalf("%v: step %d: binding limit %q, want %q\n%s", ls, i, r.Name, ls[b].Name, joinLines(hist))
			}
		}
	}
}

func joinLines(s []string) string {
	out := ""
	for _, l := range s {
		out += l + "\n"
	}
	return out
}
