package redisinflight

import "time"

// maxUnreleased bounds the leases a limiter remembers whose release did
// not reach Redis (see Limiter.unreleased), maxUnreleasedCancels those
// of them that are abandoned Acquires' (see Limiter.cancel: every Acquire
// in flight as an outage starts, whatever its key, may be one, so that a
// flood then would otherwise leave no room for the releases of the slots
// held); maxUnreleasedSent bounds those one Acquire's script removes.
const (
	maxUnreleased        = 1024
	maxUnreleasedCancels = maxUnreleased / 2
	maxUnreleasedSent    = 64
)

// lost is a lease whose release did not reach Redis: member of its set,
// which has surely ended after ends (this process's clock). tomb, for the
// lease of an abandoned Acquire whose cancellation was not sent, is its
// tombstone (see Limiter.cancel), which the key's next Acquire leaves as
// the cancellation would have: the Acquire's script may be on its way
// still. "" for a lease released (its script ran).
type lost struct {
	member, tomb string
	ends         time.Time
}

// lostUntil is when a lease that ends after ends (its sending plus a
// Lease, by this process's clock: see lease.ends) has surely ended: a
// Lease later still, for the script's delay and Redis's clock.
func (l *Limiter) lostUntil(ends time.Time) time.Time { return ends.Add(l.opts.Lease) }

// unreleasedLease remembers the lease member of rk, ending after ends
// (see lostUntil), whose release did not reach Redis (the breaker open, a fault, a
// timeout), so that this process's next Acquire of its key removes it
// before counting rather than the lease being held by nobody until it
// ends; and leaves tomb, the lease's tombstone unless "" (see lost). A
// ZREM of a member gone already removes nothing: a lease is never
// another's. At most maxUnreleased leases are remembered, at most
// maxUnreleasedCancels of them with a tombstone; beyond, the lease ends by
// itself.
func (l *Limiter) unreleasedLease(rk, member, tomb string, ends time.Time) {
	now := l.clock()
	if ends = l.lostUntil(ends); !ends.After(now) {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	full := func() bool {
		return l.lostN >= maxUnreleased || tomb != "" && l.lostTombs >= maxUnreleasedCancels
	}
	if full() {
		// Full: scan for leases ended only once one may have (a scan
		// of every lease under l.mu on each release would stall every
		// Acquire and release of the limiter for the rest of an outage).
		if now.Before(l.lostNext) {
			return
		}
		l.lostScans++
		l.lostNext = time.Time{}
		for k := range l.lost {
			l.prune(k, now)
			for _, x := range l.lost[k] {
				if l.lostNext.IsZero() || x.ends.Before(l.lostNext) {
					l.lostNext = x.ends
				}
			}
		}
		if full() {
			return
		}
	}
	if l.lostN == 0 || ends.Before(l.lostNext) {
		l.lostNext = ends
	}
	l.lost[rk] = append(l.lost[rk], lost{member, tomb, ends})
	l.lostN++
	if tomb != "" {
		l.lostTombs++
	}
	l.lostAny.Store(true)
}

// unreleased returns, as script arguments, the leases of rk whose release
// did not reach Redis and that may still be live (at most
// maxUnreleasedSent), and appends to keys the tombstones to leave (see
// lost).
func (l *Limiter) unreleased(rk string, keys []string) ([]any, []string) {
	if !l.lostAny.Load() {
		return nil, keys
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lost[rk]) == 0 {
		return nil, keys
	}
	l.prune(rk, l.clock())
	ls := l.lost[rk]
	args := make([]any, 0, min(len(ls), maxUnreleasedSent))
	for _, x := range ls[:cap(args)] {
		args = append(args, x.member)
		if x.tomb != "" {
			keys = append(keys, x.tomb)
		}
	}
	return args, keys
}

// forget drops members, leases of rk a script removed, from those
// remembered.
func (l *Limiter) forget(rk string, members []any) {
	if len(members) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	gone := make(map[string]bool, len(members))
	for _, m := range members {
		gone[m.(string)] = true
	}
	l.keep(rk, func(x lost) bool { return !gone[x.member] })
}

// prune drops the remembered leases of rk that have ended by now (l.mu
// held).
func (l *Limiter) prune(rk string, now time.Time) {
	l.keep(rk, func(x lost) bool { return x.ends.After(now) })
}

// keep keeps the remembered leases of rk that ok accepts (l.mu held).
func (l *Limiter) keep(rk string, ok func(lost) bool) {
	ls := l.lost[rk]
	kept := ls[:0]
	for _, x := range ls {
		if ok(x) {
			kept = append(kept, x)
		} else if x.tomb != "" {
			l.lostTombs--
		}
	}
	clear(ls[len(kept):])
	l.lostN -= len(ls) - len(kept)
	l.lostAny.Store(l.lostN > 0)
	if len(kept) == 0 {
		delete(l.lost, rk)
	} else {
		l.lost[rk] = kept
	}
}
