package core

import "slices"

// minEvictLog is the least bound on the evicted keys a memory shard
// remembers; the bound is a quarter of the shard's keys when that is more.
const minEvictLog = 256

// evictLog remembers, per key hash, the shard's epoch (seq, see
// memShard.epoch) when the key was last evicted or reset while its entry
// had not recovered: a take of the key that recorded an epoch up to it was
// made before the eviction (see memword.go), and its state
// went with the entry. Refunding it into the entry the key has since been
// given afresh would give back what that entry never held, letting the
// key past its limit beyond what the eviction itself forgot. A mark is
// kept until the evicted entry would have recovered: by then every take it
// held has drained, and a refund of one gives nothing back anyway. When
// more than its bound (limit) of keys are remembered, the log forgets the
// older half of them and keeps the latest seq among those (floor): every
// take of an epoch up to it then gives nothing back, which only denies
// more, and only for takes older than about half the bound of evictions
// (forgetting them all refused the refunds of every take decided before
// the overflow, evicted or not). It is guarded by its shard's lock.
type evictLog struct {
	marks map[uint64]evictMark
	// byUntil holds the marks' key hashes by until, so that a full log
	// forgets its recovered marks without looking at the others (a scan
	// of every mark, once for each instant one recovered, cost a key
	// flood whose marks recover about as fast as new ones come a look at
	// every mark at each eviction, under the shard's lock). An entry
	// whose mark was raised or forgotten since is stale: skipped when it
	// comes due, and dropped when the heap is rebuilt from the marks.
	byUntil untilHeap[uint64]
	floor   uint64
	visited int // entries looked at to make room (a measure for tests)
}

type evictMark struct {
	seq   uint64 // the shard's epoch at the eviction
	until int64  // when the evicted entry would have recovered
}

// add records that the key of hash kh was evicted at now, counted as the
// shard's epoch seq, with an entry that would have recovered at
// until. limit bounds the keys remembered.
func (l *evictLog) add(kh, seq uint64, until, now int64, limit int) {
	if l.marks == nil {
		l.marks = make(map[uint64]evictMark)
	}
	m, ok := l.marks[kh]
	if !ok && len(l.marks) >= limit {
		for l.byUntil.due(now) {
			l.visited++
			e := l.byUntil.pop()
			if em, live := l.marks[e.key]; live && em.until == e.until {
				delete(l.marks, e.key)
			}
		}
		if len(l.marks) >= limit {
			l.forgetOlder()
		}
	}
	n := evictMark{seq: max(m.seq, seq), until: max(m.until, until)}
	l.marks[kh] = n
	if !ok || n.until != m.until {
		l.byUntil.push(n.until, kh)
		if len(l.byUntil) > 2*max(limit, len(l.marks)) {
			l.rebuild()
		}
	}
}

// rebuild makes byUntil anew from the marks, without its stale entries:
// at most once every limit pushes, so that its cost is spread over them.
func (l *evictLog) rebuild() {
	l.byUntil = l.byUntil[:0]
	for k, m := range l.marks {
		l.byUntil.push(m.until, k)
	}
}

// forgetOlder forgets the older half of the marks (by seq), raising the
// floor to the latest of them: a take of an epoch up to it that one of
// them held is still refused, by the floor.
func (l *evictLog) forgetOlder() {
	if len(l.marks) == 0 {
		return
	}
	seqs := make([]uint64, 0, len(l.marks))
	for _, m := range l.marks {
		seqs = append(seqs, m.seq)
	}
	slices.Sort(seqs)
	cut := seqs[(len(seqs)-1)/2]
	for k, m := range l.marks {
		if m.seq <= cut {
			delete(l.marks, k)
		}
	}
	l.floor = max(l.floor, cut)
}

// before reports whether a take of the key of hash kh that recorded epoch seq was
// made before an eviction of that key.
func (l *evictLog) before(kh, seq uint64) bool {
	if seq <= l.floor {
		return true
	}
	m, ok := l.marks[kh]
	return ok && seq <= m.seq
}
