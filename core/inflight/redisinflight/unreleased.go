package redisinflight

import (
	"container/list"
	"time"
)

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
// still. "" for a lease released (its script ran). set is its set, links
// its places in the set's orders (see lostSet), at its place in
// Limiter.lostEnds.
type lost struct {
	member, tomb string
	ends         time.Time
	set          *lostSet
	links        [2]lostLink
	at           int
}

// lostSet is the leases of one lease set, rk, remembered as lost:
// orders[allLost] all n of them, orders[tombLost] the tombs of them with
// a tombstone, each in the order they were remembered. use is rk's place
// in Limiter.lostUse, tombUse in Limiter.lostTombUse (nil while tombs is
// 0): a full table forgets first the leases of the set least recently
// used (see Limiter.unreleasedLease).
type lostSet struct {
	rk           string
	orders       [2]lostList
	n, tombs     int
	use, tombUse *list.Element
}

// lostUntil is when a lease that ends after ends (its sending plus a
// Lease, by this process's clock: see lease.ends) has surely ended: a
// Lease later still, for the script's delay and Redis's clock.
func (l *Limiter) lostUntil(ends time.Time) time.Time { return ends.Add(l.opts.Lease) }

// unreleasedLease remembers the lease member of rk, ending after ends
// (see lostUntil), whose release did not reach Redis (the breaker open, a
// fault, a timeout), so that this process's next Acquire of its key
// removes it before counting rather than the lease being held by nobody
// until it ends; and leaves tomb, the lease's tombstone unless "" (see
// lost). A ZREM of a member gone already removes nothing: a lease is
// never another's.
//
// At most maxUnreleased leases are remembered, at most
// maxUnreleasedCancels of them with a tombstone. A full table drops the
// leases surely ended, and then makes room by forgetting the oldest lease
// of the set least recently used (a release or an Acquire of its key: see
// touchLost), which then ends by itself: a client that fills the table
// with the slots it held, leaving them as an outage starts, loses its own
// keys' leases, not those of the keys others come back to. Making room
// looks at the leases that go and no others (see lostHeap, lostSet): O(log
// n) each, whatever the table holds.
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
		// The leases surely ended go first: those due on the heap,
		// looked at alone (a scan of every lease, once for each
		// instant one ended, let a client timing its releases during
		// an outage make each look at the whole table under l.mu).
		for x := l.lostEnds.due(now); x != nil; x = l.lostEnds.due(now) {
			l.lostVisited++
			l.dropLost(x)
		}
	}
	for full() {
		l.evictLost(tomb != "" && l.lostTombs >= maxUnreleasedCancels)
	}
	set := l.lost[rk]
	if set == nil {
		set = &lostSet{rk: rk}
		set.use = l.lostUse.PushFront(set)
		l.lost[rk] = set
	}
	x := &lost{member: member, tomb: tomb, ends: ends, set: set}
	set.push(x, allLost)
	set.n++
	l.lostN++
	if tomb != "" {
		set.push(x, tombLost)
		set.tombs++
		l.lostTombs++
	}
	l.lostEnds.add(x)
	l.used(set)
	l.lostAny.Store(true)
}

// evictLost forgets the oldest lease (with a tombstone, if tomb) of the
// set least recently used (l.mu held; at least one such lease).
func (l *Limiter) evictLost(tomb bool) {
	var set *lostSet
	if tomb {
		set = l.lostTombUse.Back().Value.(*lostSet)
	} else {
		set = l.lostUse.Back().Value.(*lostSet)
	}
	o := allLost
	if tomb {
		o = tombLost
	}
	l.lostVisited++
	l.dropLost(set.orders[o].first)
}

// used puts set first in the order of use (l.mu held).
func (l *Limiter) used(set *lostSet) {
	l.lostUse.MoveToFront(set.use)
	switch {
	case set.tombs > 0 && set.tombUse == nil:
		set.tombUse = l.lostTombUse.PushFront(set)
	case set.tombs > 0:
		l.lostTombUse.MoveToFront(set.tombUse)
	case set.tombUse != nil:
		l.lostTombUse.Remove(set.tombUse)
		set.tombUse = nil
	}
}

// touchLost tells the table that rk is in use (an Acquire of its key,
// sent to Redis or not): its leases are the last a full table forgets.
func (l *Limiter) touchLost(rk string) {
	if !l.lostAny.Load() {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if set := l.lost[rk]; set != nil {
		l.used(set)
	}
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
	if l.lost[rk] == nil {
		return nil, keys
	}
	l.prune(rk, l.clock())
	set := l.lost[rk]
	if set == nil {
		return []any{}, keys
	}
	args := make([]any, 0, min(set.n, maxUnreleasedSent))
	for x := set.orders[allLost].first; len(args) < cap(args); x = x.links[allLost].next {
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
	l.keep(rk, func(x *lost) bool { return !gone[x.member] })
}

// prune drops the remembered leases of rk that have ended by now (l.mu
// held).
func (l *Limiter) prune(rk string, now time.Time) {
	l.keep(rk, func(x *lost) bool { return x.ends.After(now) })
}

// keep keeps the remembered leases of rk that ok accepts (l.mu held).
func (l *Limiter) keep(rk string, ok func(*lost) bool) {
	set := l.lost[rk]
	if set == nil {
		return
	}
	for x := set.orders[allLost].first; x != nil; {
		next := x.links[allLost].next
		l.lostVisited++
		if !ok(x) {
			l.dropLost(x)
		}
		x = next
	}
}

// dropLost forgets x, and its set if x was its last lease (l.mu held).
func (l *Limiter) dropLost(x *lost) {
	set := x.set
	set.unlink(x, allLost)
	set.n--
	l.lostN--
	if x.tomb != "" {
		set.unlink(x, tombLost)
		set.tombs--
		l.lostTombs--
	}
	l.lostEnds.remove(x)
	l.lostAny.Store(l.lostN > 0)
	if set.n > 0 {
		if set.tombs == 0 && set.tombUse != nil {
			l.lostTombUse.Remove(set.tombUse)
			set.tombUse = nil
		}
		return
	}
	l.lostUse.Remove(set.use)
	if set.tombUse != nil {
		l.lostTombUse.Remove(set.tombUse)
	}
	delete(l.lost, set.rk)
}
