package core

import "github.com/floodgate-go/floodgate/core/store"

// idle reports whether every key of l's state behaves at now as a key
// never seen, so that l can be dropped, and a new limiter of its policy
// made, starting no key afresh: the enforced limits' and the shadow
// limits' (a shadow reporting a fresh budget for a key its limit alone
// would deny is the dry run's report lost). The in-memory store keeps a
// key's state in the limiter's tables, and so does a table of another
// store that is a [store.Idler] (local-first; Redis under FailLocal),
// which says; the others keep it under the policy's name, where a new
// limiter of that name finds it.
func (l *Limiter) idle(now int64) bool {
	b := l.cur.Load()
	if b == nil {
		return true
	}
	if !tableIdle(b.table, b.mem, now) {
		return false
	}
	for i := range b.shadow {
		if !tableIdle(b.shadow[i].table, b.shadow[i].mem, now) {
			return false
		}
	}
	return true
}

// tableIdle is idle for one table, mem when it is the in-memory store's.
func tableIdle(t store.Table, mem *memTable, now int64) bool {
	if mem != nil {
		return mem.idle(now)
	}
	if i, ok := t.(store.Idler); ok {
		return i.Idle(now)
	}
	return true
}

// Idle reports whether every entry of t has recovered at now: t is a
// [store.Idler], for the stores that keep an in-memory table of their own
// (the Redis store's FailLocal limiter).
func (t *memTable) Idle(now int64) bool { return t.idle(now) }

// idle reports whether every entry of t has recovered at now. It locks
// each shard in turn; a shard whose next recovery (nextIdle, a lower
// bound) is after now is known not to be idle without a scan.
func (t *memTable) idle(now int64) bool {
	for i := range t.shards {
		if !t.shardIdle(&t.shards[i], now) {
			return false
		}
	}
	return true
}

// shardIdle reports whether every entry of s has recovered at now. A
// shard whose next recovery has passed is swept, as a full shard's insert
// sweeps it: its recovered entries dropped (a key never seen, exactly),
// its next recovery recorded, so that it is not scanned again before
// something in it changes or recovers.
func (t *memTable) shardIdle(s *memShard, now int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n == 0 || s.arr.Load() == nil {
		return true
	}
	if s.nextIdle > now {
		return false
	}
	t.sweep(s, now)
	return s.n == 0
}
