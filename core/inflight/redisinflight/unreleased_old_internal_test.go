package redisinflight

import (
	"container/list"
	"time"
)

// oldLost is the lost-lease table as it was before its expiry heap (a
// full table scanned every lease for those ended, once for each instant
// one may have), kept as the model TestUnreleasedModel compares the table
// with: which leases it keeps, drops and sends must not change. Its
// methods are those of Limiter then, on a table of its own (one
// goroutine: no lock).
type oldLost struct {
	clock                func() time.Time
	lease                time.Duration
	lost                 map[string]*oldLostSet
	lostN, lostTombs     int
	lostUse, lostTombUse list.List
	lostAny              bool
	lostNext             time.Time
}

// oldLostSet is lostSet as it was: its leases in a slice, oldest first.
type oldLostSet struct {
	rk           string
	leases       []oldLease
	tombs        int
	use, tombUse *list.Element
}

// oldLease is lost as it was.
type oldLease struct {
	member, tomb string
	ends         time.Time
}

// newOldLost returns an empty oldLost on clock, of Lease lease.
func newOldLost(clock func() time.Time, lease time.Duration) *oldLost {
	return &oldLost{clock: clock, lease: lease, lost: make(map[string]*oldLostSet)}
}

// unreleasedLease is Limiter.unreleasedLease as it was.
func (l *oldLost) unreleasedLease(rk, member, tomb string, ends time.Time) {
	now := l.clock()
	if ends = ends.Add(l.lease); !ends.After(now) {
		return
	}
	full := func() bool {
		return l.lostN >= maxUnreleased || tomb != "" && l.lostTombs >= maxUnreleasedCancels
	}
	if full() && !now.Before(l.lostNext) {
		l.lostNext = time.Time{}
		for k := range l.lost {
			l.prune(k, now)
			if set := l.lost[k]; set != nil {
				for _, x := range set.leases {
					if l.lostNext.IsZero() || x.ends.Before(l.lostNext) {
						l.lostNext = x.ends
					}
				}
			}
		}
	}
	for full() {
		l.evictLost(tomb != "" && l.lostTombs >= maxUnreleasedCancels)
	}
	if l.lostN == 0 || ends.Before(l.lostNext) {
		l.lostNext = ends
	}
	set := l.lost[rk]
	if set == nil {
		set = &oldLostSet{rk: rk}
		set.use = l.lostUse.PushFront(set)
		l.lost[rk] = set
	}
	set.leases = append(set.leases, oldLease{member, tomb, ends})
	l.lostN++
	if tomb != "" {
		set.tombs++
		l.lostTombs++
	}
	l.used(set)
	l.lostAny = true
}

// evictLost is Limiter.evictLost as it was.
func (l *oldLost) evictLost(tomb bool) {
	var set *oldLostSet
	if tomb {
		set = l.lostTombUse.Back().Value.(*oldLostSet)
	} else {
		set = l.lostUse.Back().Value.(*oldLostSet)
	}
	first := true
	l.keep(set.rk, func(x oldLease) bool {
		if first && (!tomb || x.tomb != "") {
			first = false
			return false
		}
		return true
	})
}

// used is Limiter.used as it was.
func (l *oldLost) used(set *oldLostSet) {
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

// touchLost is Limiter.touchLost as it was.
func (l *oldLost) touchLost(rk string) {
	if !l.lostAny {
		return
	}
	if set := l.lost[rk]; set != nil {
		l.used(set)
	}
}

// unreleased is Limiter.unreleased as it was.
func (l *oldLost) unreleased(rk string, keys []string) ([]any, []string) {
	if !l.lostAny || l.lost[rk] == nil {
		return nil, keys
	}
	l.prune(rk, l.clock())
	var ls []oldLease
	if set := l.lost[rk]; set != nil {
		ls = set.leases
	}
	args := make([]any, 0, min(len(ls), maxUnreleasedSent))
	for _, x := range ls[:cap(args)] {
		args = append(args, x.member)
		if x.tomb != "" {
			keys = append(keys, x.tomb)
		}
	}
	return args, keys
}

// forget is Limiter.forget as it was.
func (l *oldLost) forget(rk string, members []any) {
	if len(members) == 0 {
		return
	}
	gone := make(map[string]bool, len(members))
	for _, m := range members {
		gone[m.(string)] = true
	}
	l.keep(rk, func(x oldLease) bool { return !gone[x.member] })
}

// prune is Limiter.prune as it was.
func (l *oldLost) prune(rk string, now time.Time) {
	l.keep(rk, func(x oldLease) bool { return x.ends.After(now) })
}

// keep is Limiter.keep as it was.
func (l *oldLost) keep(rk string, ok func(oldLease) bool) {
	set := l.lost[rk]
	if set == nil {
		return
	}
	ls := set.leases
	kept := ls[:0]
	for _, x := range ls {
		if ok(x) {
			kept = append(kept, x)
		} else if x.tomb != "" {
			set.tombs--
			l.lostTombs--
		}
	}
	clear(ls[len(kept):])
	l.lostN -= len(ls) - len(kept)
	l.lostAny = l.lostN > 0
	set.leases = kept
	if len(kept) > 0 {
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
	delete(l.lost, rk)
}

// dump is the table's state, for comparison: the sets most recently used
// first, each with its leases oldest first, then the order of those with
// a tombstone, and the counts.
func (l *oldLost) dump() lostDump {
	var d lostDump
	for e := l.lostUse.Front(); e != nil; e = e.Next() {
		set := e.Value.(*oldLostSet)
		d.sets = append(d.sets, set.rk)
		for _, x := range set.leases {
			d.leases = append(d.leases, lostRow{set.rk, x.member, x.tomb, x.ends})
		}
	}
	for e := l.lostTombUse.Front(); e != nil; e = e.Next() {
		d.tombSets = append(d.tombSets, e.Value.(*oldLostSet).rk)
	}
	d.n, d.tombs, d.any = l.lostN, l.lostTombs, l.lostAny
	return d
}
