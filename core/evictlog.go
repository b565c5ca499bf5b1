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
	floor uint64
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
	if _, ok := l.marks[kh]; !ok && len(l.marks) >= limit {
		for k, m := range l.marks {
			if m.until <= now {
				delete(l.marks, k)
			}
		}
		if len(l.marks) >= limit {
			l.forgetOlder()
		}
	}
	m := l.marks[kh]
	l.marks[kh] = evictMark{seq: max(m.seq, seq), until: max(m.until, until)}
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
