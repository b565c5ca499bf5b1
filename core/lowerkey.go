package core

import "slices"

// lowerKeyCap bounds the refunds the log keeps for one key. Each refund of
// a key walks the key's list about three times (moved twice, pruneKey
// once) under its shard's lock, which the other keys' refunds of the
// shard wait for (a refund on Redis holds it across its round trip). A
// client taking and refunding its own key in a loop (a refund gives its
// cost back: the loop has no end within the refund window) grew its list
// to the shard's bound (16,384 by default) and made each of its refunds
// walk three times that. A key's list now holds at most lowerKeyCap
// entries, and beyond them its failed refunds alone, which the log keeps
// as it did (see forgetKeyOlder): a failed refund gives nothing back, so
// that a loop of them ends with what the key admits.
//
// The cost: a key holding lowerKeyCap refunds forgets the oldest quarter
// of them (by position), raising its own floor (lowerShard.floors), and a
// take of the key positioned at or below that floor gives nothing back
// from its span limits (its windows still do). A take is thus refused only
// once more than 3/4 lowerKeyCap (768) refunds of its own key have been
// made after it, within their holds: the older takes of a key refunding
// more than that while they are held give back less, never more. The other
// keys of the shard are not concerned: the floor is the key's alone.
//
// Its size: a cap of 128 (forgetting half) refused the refunds of honest
// concurrent clients of one hot key: TestHotKeyExactUnderConcurrency (8
// goroutines, each refunding a quarter of its 300 takes a phase) makes up
// to 600 refunds of the key between a take and its own refund, and expects
// each to give its unit back. A refund walks at most about 3 times
// lowerKeyCap entries (5 times when it forgets), where it walked up to 3
// times the shard's bound (16,384 by default on other stores).
const lowerKeyCap = 1024

// floor is the highest position of a refund of the key of hash kh that
// the shard has forgotten, or may have (forgot: the shard's own, raised
// for any key). A take of the key positioned at or below it may have been
// moved by refunds the log no longer knows (see moved).
//
// It never decreases, which is what moved needs of it: the key's own floor
// is dropped only with the key's list (dropKey), once folded into the
// shard's. The caller holds sh's lock.
func (sh *lowerShard) floor(kh uint64) uint64 { return max(sh.forgot, sh.floors[kh]) }

// forgetKeyOlder forgets the oldest quarter of the refunds (made, not failed) of the key of
// hash kh (by position: those at or below the lower quartile, at least a
// quarter, more on ties), raising the key's floor
// to the latest of them, as forgetOlder does for the shard's, but for this
// key alone. Safe: a refund moves only the spans of its own key's takes,
// so that the takes of other keys need not count it; a take of this key
// positioned above the floor was decided after every refund forgotten
// (moved nothing of it), and one positioned at or below it gives nothing
// back from its spans. A refund R remembered, taken at or below the floor,
// is counted against every later take (moved's "between": a forgotten
// refund may lie between R's take and theirs), which only gives back
// less.
//
// A failed refund is never forgotten here: the store may make it at any
// time, after takes positioned above any floor (forgetting one raised the
// floor to the takes numbered so far, and a take decided after that, then
// moved by the refund made late, gave back the whole of its hold: more
// than the log as it was, which kept it within the window). It stays,
// counted against every take of the key, until the window or a full shard
// forgets it: the key's list exceeds lowerKeyCap by its failed refunds
// alone (a failed refund gives nothing back, so that a client makes no
// more of them than its key admits within the window), and forgetKeyOlder
// runs once lowerKeyCap of its refunds did not fail, forgetting the oldest
// quarter of those. Each refund of a key holding f failed refunds walks
// its list of up to lowerKeyCap+f entries about three times, as every
// refund of the key did before lowerKeyCap. The list may be left empty
// (ties at the quartile, of refunds that changed nothing): the caller
// appends its refund at once, so that the key, and its floor, stay. The
// sort costs an allocation once every lowerKeyCap/4 refunds of a key at
// its cap. The caller holds sh's lock.
func (sh *lowerShard) forgetKeyOlder(kh uint64) {
	list := sh.keys[kh]
	sh.walked += 2 * len(list)
	pos := make([]uint64, 0, len(list))
	for i := range list {
		if list[i].pos != failedPos {
			pos = append(pos, list[i].pos)
		}
	}
	if len(pos) == 0 {
		return // every refund of the key failed: kept, see above
	}
	slices.Sort(pos)
	cut := pos[max(1, len(pos)/4)-1]
	if sh.floors == nil {
		sh.floors = make(map[uint64]uint64)
	}
	floor := sh.floors[kh]
	kept := list[:0]
	for _, e := range list {
		if e.pos != failedPos && e.pos <= cut {
			floor = max(floor, sh.forgotPos(e))
		} else {
			kept = append(kept, e)
		}
	}
	sh.floors[kh] = floor
	sh.n -= len(list) - len(kept)
	clear(list[len(kept):])
	sh.keys[kh] = kept
}

// dropKey deletes the key of hash kh, whose list has emptied, and its
// floor, folded into the shard's first so that no take of the key is
// refused less after (floor never decreases). The fold raises the shard's
// floor no higher than forgetting the key's refunds one by one does: each
// entry dropped from a list is forgotten (forget), and the key's floor is
// the position of one forgotten before its later entries, which the
// shard's floor has passed by the time the list is empty (but for
// failed refunds, and those that changed nothing, which raise it to the
// take count, or not at all). The caller holds sh's lock.
func (sh *lowerShard) dropKey(kh uint64) {
	delete(sh.keys, kh)
	if f, ok := sh.floors[kh]; ok {
		sh.forgot = max(sh.forgot, f)
		delete(sh.floors, kh)
	}
}
