package core

import "slices"

// oldLowerShard is a copy of lowerShard as it was before lowerKeyCap
// (08697e9^): a test-only model, for the differential test of the key cap.
type oldLowerShard struct {
	seqv uint64 // the take count (seq), set by the test

	keys map[uint64][]lowering // per key hash, in the order recorded
	n    int                   // entries in keys
	// forgot is the highest position of a refund forgotten: a take at or
	// below it may have been moved by refunds the shard no longer knows.
	forgot uint64
	// byAt holds a record of each entry of keys, its instant and key
	// hash, soonest first, so that a full shard prunes only the keys of
	// entries older than the window. A record whose entry has gone since
	// (pruned with its key's, or forgotten) is stale: its key is pruned
	// for nothing when it comes first, and it is dropped when the heap is
	// rebuilt from keys.
	byAt    untilHeap[uint64]
	visited int // keys looked at to make room (a measure for tests)
	walked  int // entries moved and pruneKey looked at (a measure for tests)
}

// moved is lowerShard.moved as it was, with the shard's floor alone.
func (sh *oldLowerShard) moved(kh, pos, hi uint64, taken int64, until *[MaxLimits]int64) (shift [MaxLimits]int64, ok bool) {
	if pos <= sh.forgot {
		return shift, false
	}
	list := sh.keys[kh]
	sh.walked += 2 * len(list) // it walks the list twice
	// Per limit, the two highest positions of the refunds that moved it
	// and may precede the take (indexes into list), for "a refund other
	// than R's between R's take and T's".
	var top [MaxLimits][2]int
	for i := range top {
		top[i] = [2]int{-1, -1}
	}
	for j := range list {
		e := &list[j]
		if e.pos == 0 || (hi != noHi && e.pos >= hi) {
			continue
		}
		for i, d := range e.shift {
			if d <= 0 {
				continue
			}
			switch t := &top[i]; {
			case t[0] < 0 || e.pos > list[t[0]].pos:
				t[1], t[0] = t[0], j
			case t[1] < 0 || e.pos > list[t[1]].pos:
				t[1] = j
			}
		}
	}
	for j := range list {
		e := &list[j]
		if e.pos < pos || e.pos == 0 || (hi != noHi && e.tmark > hi) {
			continue
		}
		for i, d := range e.shift {
			if d <= 0 {
				continue
			}
			// A forgotten refund positioned at or above R's take may lie
			// between the two takes: the log no longer tells.
			between := sh.forgot >= e.tmark
			for _, k := range top[i] {
				if k >= 0 && k != j && list[k].pos >= e.tmark {
					between = true
				}
			}
			if e.taken < taken || e.until[i] <= until[i] || between {
				shift[i] = min(shift[i]+d, 4*maxSpan)
			}
		}
	}
	return shift, true
}

// record is lowerShard.record as it was, with no key cap.
func (sh *oldLowerShard) record(kh uint64, e lowering, window int64, perShard int) {
	if sh.keys == nil {
		sh.keys = make(map[uint64][]lowering)
	}
	if sh.n >= perShard {
		// Only the keys of the entries older than window are pruned: a
		// prune of every key, once for each instant one entry aged, cost
		// refunds arriving about as fast as their entries age a look at
		// every key of the shard at each refund, under its lock.
		// A key is pruned once for all its records that come due
		// (pruneKey walks its whole list): one per record let a key
		// whose own refunds pruned it, leaving up to a heap's worth of
		// stale records, be walked once for each by the next refund of
		// any key of the shard.
		var buf [16]uint64 // most refunds find few keys due: no allocation
		due := buf[:0]
		for sh.byAt.due(e.at - window) {
			sh.visited++
			due = append(due, sh.byAt.pop().key)
		}
		slices.Sort(due)
		for _, k := range slices.Compact(due) {
			sh.pruneKey(k, e.at, window)
		}
		if sh.n >= perShard {
			sh.forgetOlder()
		}
	}
	sh.pruneKey(kh, e.at, window)
	sh.keys[kh] = append(sh.keys[kh], e)
	sh.n++
	sh.byAt.push(e.at, kh)
	if len(sh.byAt) > 2*max(perShard, sh.n) {
		sh.rebuild()
	}
}

// rebuild is lowerShard.rebuild as it was.
func (sh *oldLowerShard) rebuild() {
	sh.byAt = sh.byAt[:0]
	for kh, list := range sh.keys {
		for _, e := range list {
			sh.byAt.push(e.at, kh)
		}
	}
}

// forgetOlder is lowerShard.forgetOlder as it was, deleting emptied keys.
func (sh *oldLowerShard) forgetOlder() {
	pos := make([]uint64, 0, sh.n)
	for _, list := range sh.keys {
		for _, e := range list {
			pos = append(pos, e.pos)
		}
	}
	if len(pos) == 0 {
		return
	}
	slices.Sort(pos)
	cut := pos[(len(pos)-1)/2]
	for kh, list := range sh.keys {
		kept := list[:0]
		for _, e := range list {
			if e.pos <= cut {
				sh.forget(e)
			} else {
				kept = append(kept, e)
			}
		}
		sh.n -= len(list) - len(kept)
		if len(kept) == 0 {
			delete(sh.keys, kh)
			continue
		}
		clear(list[len(kept):])
		sh.keys[kh] = kept
	}
}

// pruneKey is lowerShard.pruneKey as it was, deleting an emptied key.
func (sh *oldLowerShard) pruneKey(kh uint64, now, window int64) {
	list := sh.keys[kh]
	sh.walked += len(list)
	kept := list[:0]
	for _, e := range list {
		if e.at > now-window {
			kept = append(kept, e)
		} else {
			sh.forget(e)
		}
	}
	sh.n -= len(list) - len(kept)
	if len(kept) == 0 {
		delete(sh.keys, kh)
		return
	}
	clear(list[len(kept):])
	sh.keys[kh] = kept
}

// forget is lowerShard.forget as it was (seqv for the take count).
func (sh *oldLowerShard) forget(e lowering) {
	switch e.pos {
	case 0:
	case failedPos:
		sh.forgot = max(sh.forgot, sh.seqv)
	default:
		sh.forgot = max(sh.forgot, e.pos)
	}
}
