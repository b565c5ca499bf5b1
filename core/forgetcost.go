package core

import "math"

// This file holds each algorithm's forgetCost: what forgetting a key's
// state (replacing it by the zero state of a key never seen) would admit
// that the state does not. The memory store forgets, when it must make room,
// the entry whose forgetting admits least (see memTable.evict).
//
// The measure is in the policy's cost units, so that the limits of one
// policy compare. It is 0 when forgetting admits nothing more (a recovered
// state, or a WarmUp key free to pass, which a cold start passes no sooner).
// For the counting algorithms (GCRA, LeakyBucket, FixedWindow,
// SlidingWindow, SlidingLog, RollingWindow, Hybrid, TokenBucket) it is the
// units taken and not yet recovered, which bounds how many more units a key
// forgotten at now can be admitted over any span of time than it would have
// been. For Backoff and WarmUp, whose later passes depend on the phase of
// the requests, it is what forgetting admits before the key's current wait
// ends (TestForgetCostBoundsWhatForgettingAdmits checks both).

// forgetCost returns what forgetting st at now admits, the most over the
// policy's limits: a key admitted by every limit gains at most what its
// most-spent limit has not yet recovered.
func (p *Policy) forgetCost(st []int64, now int64) int64 {
	var c int64
	for i := range p.limits {
		l := &p.limits[i]
		c = max(c, l.step.forgetCost(l.state(st), now))
	}
	return c
}

// ceilDiv returns ⌈a/b⌉ for a ≥ 0 and b > 0.
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 {
		q++
	}
	return q
}

// GCRA, LeakyBucket (whose step embeds gcraStep): the debt TAT − now in
// units, rounded up, which a fresh key takes back at once.
func (g *gcraStep) forgetCost(st []int64, now int64) int64 {
	return ceilDiv(nonNeg(st[0]-now), g.interval)
}

// FixedWindow: the units the current window holds.
func (f *fixedWindowStep) forgetCost(st []int64, now int64) int64 {
	count, _ := f.current(st, now)
	return count
}

// SlidingWindow: the units the estimate counts at now.
func (s *slidingWindowStep) forgetCost(st []int64, now int64) int64 {
	prev, curr, start, eff := s.at(st, now)
	return curr + s.counter().Weighted(prev, start+s.window-eff)
}

// SlidingLog: the entries still within the window.
func (s *slidingLogStep) forgetCost(st []int64, now int64) int64 {
	l := s.view(st)
	_, first := s.clock(&l, now)
	return l.n - first
}

// RollingWindow: the units the ring holds while the newest period written
// is in the window (and it holds some), in O(1) — an insert into a full
// table weighs many candidates under the shard's lock. That is the units
// the window holds plus those of the periods that have left it since the
// last take: at least what forgetting admits, at most Quota. Once every
// period has left the window it is 0; in the rare state whose newest
// period was emptied by refunds, the window is summed.
func (r *rollingWindowStep) forgetCost(st []int64, now int64) int64 {
	total := *r.total(st)
	if total <= 0 {
		return 0
	}
	p, idx := spanIndex(now, r.period), st[0]
	switch {
	case p-idx >= r.n:
		return 0
	case p <= idx || *r.bucket(st, idx) > 0:
		return total
	}
	_, _, sum, _ := r.view(st, now)
	return sum
}

// Hybrid: the bursty window's count, or in smooth (and exhausted) mode the
// debt in intervals, which while an exhausted window runs is more than the
// whole quota.
func (h *hybridStep) forgetCost(st []int64, now int64) int64 {
	if st[0] != hybridBursty {
		return ceilDiv(nonNeg(st[1]-now), h.interval)
	}
	if st[2] == 0 || now-st[1] >= h.window {
		return 0
	}
	return st[2]
}

// TokenBucket: the tokens missing from a full bucket, rounded up.
func (s *tokenStep) forgetCost(st []int64, now int64) int64 {
	tokens, last := s.load(st)
	missing := s.burstF - s.refilled(tokens, nonNeg(now-last))
	if !(missing > 0) {
		return 0
	}
	return min(int64(math.Ceil(missing)), s.burst)
}

// WarmUp: nothing when the key may pass (a cold start passes no sooner);
// while it must wait until next, the passes a fresh key gets before next:
// one at once, then one per cold, slowly warming, interval. So a key that
// sent one request and waits its cold interval costs 1, as does a key
// hammered to its limit, which waits about a stable interval (ties go to
// the nearest to recovery: the cold one). Beyond next WarmUp is not
// monotone (two keys' passes drift apart with the phase of their requests
// whatever their states), so this is the measure of what forgetting admits
// early, not a bound over all later time.
func (w *warmStep) forgetCost(st []int64, now int64) int64 {
	next, _ := w.load(st)
	if next <= now {
		return 0
	}
	d, t, stored := next-now, int64(0), w.maxP
	var n int64
	for ; n < 4; n++ {
		if t >= d {
			return n
		}
		wait, spend := w.charge(stored, 1)
		t, stored = satAdd(t, wait), stored-spend
	}
	if t >= d {
		return n
	}
	// Every later interval is at least the stable one.
	return n + ceilDiv(d-t, max(int64(w.stable), 1))
}

// Backoff: the free failures forgetting gives back (all of Free while
// locked, else those counted in the open window), plus the attempts a fresh
// key, locked for Base, 2·Base, … after them, would get before this key's
// next lockout ends (its lock's remaining time, then lock(k)). So a lockout
// weighs more the longer it has to run and the more lockouts precede it,
// and always more than the failures of an unlocked key of fewer lockouts.
func (b *backoffStep) forgetCost(st []int64, now int64) int64 {
	v, at := b.view(st, now)
	if fresh(v[:]) {
		return 0
	}
	n, horizon := min(v[boN], b.free), b.lock(v[boK])
	if v[boUntil] > at {
		n = b.free
		horizon = satAdd(horizon, v[boUntil]-at)
	}
	return n + b.freshLocks(horizon)
}

// freshLocks returns how many lockouts of a fresh key (Base, 2·Base, …, at
// most Max each) end before the span d: the attempts it gets in d beyond
// its first Free+1.
func (b *backoffStep) freshLocks(d int64) int64 {
	var sum, j int64
	for k := int64(0); k < 64; k++ {
		l := b.lock(k)
		if l == b.max {
			// Every later lockout is Max long.
			if rest := d - sum; rest > 0 {
				j += ceilDiv(rest, l) - 1
			}
			return j
		}
		if sum = satAdd(sum, l); sum >= d {
			return j
		}
		j++
	}
	return j
}

// satAdd returns a+b for a, b ≥ 0, saturated at the largest int64.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
