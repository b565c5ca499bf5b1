package core

import (
	"fmt"
	"time"
)

// MaxSlidingLogQuota is the largest Quota of a [SlidingLog]. Its state is
// Quota+3 words per key (512 KiB at this limit); use [SlidingWindow] or
// [RollingWindow], whose state does not grow with the limit, for larger ones.
const MaxSlidingLogQuota = 1 << 16

// SlidingLog admits at most Quota units in any trailing Window, exactly: a
// request of cost c at now is admitted when the units admitted in
// (now − Window, now] plus c are at most Quota.
//
// It keeps a log of the instants of the last Quota units per key, one entry
// per unit of cost: Quota+3 words (a ring of Quota timestamps, the index of
// the oldest, the number of entries and the latest instant logged), so Quota
// is at most [MaxSlidingLogQuota]. An entry of instant t counts while
// now − t < Window.
//
// A denied request can pass when enough entries have expired: RetryAfter is
// the exact time until the (n+c−Quota)-th oldest of the n counted entries
// expires, or [Never] when c exceeds Quota. ResetAfter is the time until the
// newest entry expires; Remaining is Quota minus the counted entries.
//
// With CountRejected, denied attempts are logged too (one entry per unit of
// cost, at the instant the attempt is decided at), so a client that keeps
// hammering stays denied until it slows down below Quota per Window: the
// limit then bounds attempted units rather than admitted ones. The rule, the
// same in every store: every attempt the policy denies is logged, whichever
// of its limits denied it, unless some limit of the policy can never grant
// its cost (RetryAfter [Never], such as a cost above Quota): such an
// attempt says nothing about the client's rate. When the log is full the
// new entries overwrite the oldest. Keeping only the Quota newest entries
// decides exactly as the whole log would: the dropped entries are older than
// every kept one, so while any of them still counts all Quota kept ones
// count too and any request (of cost ≥ 1) is denied either way; once they
// have all expired the kept entries are the whole log.
//
// The limit's result for a denied decision is what it reports once the
// attempt is logged: Remaining and ResetAfter count the logged entries,
// and RetryAfter is the exact wait until the same request would pass the
// logged log (Allowed says whether it would pass now, which can only be
// when another limit denied the attempt). So the RetryAfter of the whole
// decision is the exact wait of the client whose attempt it was: a client
// that waits as told before retrying gets through. A Peek logs nothing but
// is told the same as the attempt would be (a wait that may be longer than
// it needs).
//
// Time only moves forwards in the log: it keeps the latest instant it has
// logged at (a refund does not move it back), and a caller whose now is
// older (it raced a newer caller) is decided, and logged, as of that
// instant, exactly as the newest caller would be. The key is kept a Window
// past that instant, also when refunds have emptied its log.
//
// Refund removes up to cost entries whose instant equals taken exactly.
// Entries of a take decided at a stale now were logged at a later instant
// and are not found: refunds err towards admitting less.
type SlidingLog struct {
	// Quota is the most units admitted in any trailing Window, in
	// [1, MaxSlidingLogQuota].
	Quota int64
	// Window is the length of the trailing window, in (0, 36 years].
	Window time.Duration
	// CountRejected logs denied attempts as well as admitted ones.
	CountRejected bool
}

// Validate reports whether s is usable.
func (s SlidingLog) Validate() error { _, err := s.compile(); return err }

func (s SlidingLog) value() Algorithm { return s }

func (s SlidingLog) compile() (stepper, error) {
	if s.Quota < 1 || s.Quota > MaxSlidingLogQuota {
		return nil, fmt.Errorf("core: SlidingLog: quota %d must be in [1, %d] (use SlidingWindow or RollingWindow for larger quotas): %w",
			s.Quota, MaxSlidingLogQuota, ErrInvalidConfig)
	}
	if err := validWindow("SlidingLog", s.Window); err != nil {
		return nil, err
	}
	return &slidingLogStep{limit: s.Quota, window: int64(s.Window), countRejected: s.CountRejected}, nil
}

// slidingLogStep keeps st[0], the ring index of the oldest entry, st[1],
// the number of entries, the ring st[2:2+limit] of entry instants, oldest
// first, never decreasing, and st[2+limit], the latest instant logged
// (never below the newest entry; 0 for a key never seen).
type slidingLogStep struct {
	limit, window int64
	countRejected bool
}

// slLog is a view of a sliding log's state.
type slLog struct {
	ring    []int64
	head, n int64
	latest  int64
}

func (s *slidingLogStep) words() int { return int(s.limit) + 3 }

func (s *slidingLogStep) quota() (int64, time.Duration) { return s.limit, time.Duration(s.window) }

func (s *slidingLogStep) view(st []int64) slLog {
	l := slLog{ring: st[2 : 2+s.limit], head: st[0], n: st[1], latest: st[2+s.limit]}
	if l.head < 0 || l.head >= s.limit {
		l.head = 0
	}
	l.n = min(max(l.n, 0), s.limit)
	return l
}

// at returns the i-th oldest entry (0 ≤ i < n).
func (l *slLog) at(i int64) int64 { return l.ring[l.pos(i)] }

func (l *slLog) pos(i int64) int64 {
	p := l.head + i
	if p >= int64(len(l.ring)) {
		p -= int64(len(l.ring))
	}
	return p
}

// search returns the number of entries ≤ t.
func (l *slLog) search(t int64) int64 {
	lo, hi := int64(0), l.n
	for lo < hi {
		m := int64(uint64(lo+hi) >> 1)
		if l.at(m) <= t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// clock returns the instant now is decided at (never before the latest
// instant logged) and the index of the oldest entry still counted then.
func (s *slidingLogStep) clock(l *slLog, now int64) (eff, first int64) {
	eff = max(now, l.latest)
	if l.n > 0 {
		eff = max(eff, l.at(l.n-1))
	}
	return eff, l.search(eff - s.window)
}

// push appends c entries at t (never before l.latest), dropping the oldest
// when the log is full.
func (l *slLog) push(t, c int64) {
	l.latest = t
	size := int64(len(l.ring))
	if c >= size {
		for i := range l.ring {
			l.ring[i] = t
		}
		l.head, l.n = 0, size
		return
	}
	for ; c > 0; c-- {
		if l.n == size {
			l.ring[l.head] = t
			if l.head++; l.head == size {
				l.head = 0
			}
		} else {
			l.ring[l.pos(l.n)] = t
			l.n++
		}
	}
}

// drop forgets the first entries.
func (l *slLog) drop(first int64) {
	l.head, l.n = l.pos(first), l.n-first
	if l.n == 0 {
		l.head = 0
	}
}

func (l *slLog) store(st []int64) { st[0], st[1], st[2+len(l.ring)] = l.head, l.n, l.latest }

func (s *slidingLogStep) take(st []int64, now, cost int64, commit bool) outcome {
	l := s.view(st)
	eff, first := s.clock(&l, now)
	live := l.n - first
	if cost > s.limit-live {
		o := outcome{remaining: s.limit - live}
		if live > 0 {
			o.resetAfter = l.at(l.n-1) + s.window - now
		}
		if cost > s.limit {
			o.retryAfter = int64(Never)
		} else {
			// The (live+cost−limit)-th oldest counted entry must expire.
			// (With CountRejected, denied then reports the log with the
			// attempt logged.)
			o.retryAfter = l.at(first+live+cost-s.limit-1) + s.window - now
		}
		return o
	}
	if cost == 0 {
		// The log as it stands: its newest counted entry's expiry.
		o := outcome{allowed: true, remaining: s.limit - live}
		if live > 0 {
			o.resetAfter = l.at(l.n-1) + s.window - now
		}
		return o
	}
	if commit {
		l.drop(first)
		l.push(eff, cost)
		l.store(st)
	}
	return outcome{allowed: true, remaining: s.limit - live - cost, resetAfter: eff + s.window - now}
}

// denied logs, with CountRejected, an attempt of cost the policy denied
// (when commit is set) and reports in o what the limit decides for the
// same request once it is logged.
func (s *slidingLogStep) denied(st []int64, now, cost int64, commit bool) (outcome, bool) {
	if !s.countRejected || cost < 1 || cost > s.limit {
		return outcome{}, false
	}
	l := s.view(st)
	eff, first := s.clock(&l, now)
	live := l.n - first
	// Logged: the newest min(live+cost, limit) entries, of which the
	// last cost are at eff.
	m := min(live+cost, s.limit)
	o := outcome{remaining: s.limit - m, resetAfter: eff + s.window - now}
	switch k := m + cost - s.limit; {
	case k <= 0:
		o.allowed = true
	case 2*cost <= s.limit:
		// The k-th oldest logged entry must expire: one of the counted
		// entries kept, the (live−(m−cost)+k)-th oldest of them.
		o.retryAfter = l.at(first+live+2*cost-s.limit-1) + s.window - now
	default:
		// Only entries at eff can make room.
		o.retryAfter = eff + s.window - now
	}
	if commit {
		l.drop(first)
		l.push(eff, cost)
		l.store(st)
	}
	return o, true
}

func (s *slidingLogStep) refund(st []int64, _, taken, _, cost int64) {
	l := s.view(st)
	hi := l.search(taken)
	lo := hi
	if taken > -1<<63 {
		lo = l.search(taken - 1)
	}
	k := min(cost, hi-lo)
	if k <= 0 {
		return
	}
	for i := hi; i < l.n; i++ {
		l.ring[l.pos(i-k)] = l.at(i)
	}
	l.n -= k
	if l.n == 0 {
		l.head = 0
	}
	l.store(st)
}

// idleAt is a window after the latest instant logged: a lagging caller
// is clamped to that instant as long as the key is kept (also once a
// refund has emptied the log), and both stores keep it as long.
func (s *slidingLogStep) idleAt(st []int64) int64 {
	l := s.view(st)
	if l.n == 0 && l.latest == 0 {
		return 0
	}
	latest := l.latest
	if l.n > 0 {
		latest = max(latest, l.at(l.n-1))
	}
	return latest + s.window
}
