package localfirst

// Idle reports whether every key of t's keyset behaves at now as one the
// node never saw (see store.Idler): no entry, indexed or in limbo, counts
// units that have not recovered or holds what a round must push or give
// back (a lease, a live claim, units in flight), and no note of a key
// forgotten before it recovered still holds. A new table of the policy,
// on a keyset of its own, then decides no key more loosely than t would.
func (t *table) Idle(now int64) bool {
	k := t.k
	ls := k.lims.Load().ls
	for i := range k.shards {
		if !k.shardIdle(&k.shards[i], ls, now) {
			return false
		}
	}
	return true
}

// shardIdle is Idle for one shard, locked while it looks. It forgets the
// entries that weigh nothing and hold nothing to sync, as a full shard
// evicts them first (exactly a key the node never saw), so that a shard
// that holds state is not scanned whole again at the next call.
func (k *keyset) shardIdle(sh *shard, ls []lim, now int64) bool {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	idle := sh.forgot.lost.until <= now
	for _, n := range sh.forgot.at {
		if n.until > now {
			idle = false
			break
		}
	}
	// From the end of the list: unlist moves the last entry into the
	// place of the one it removes, already looked at.
	for i := len(sh.list) - 1; i >= 0; i-- {
		e := sh.list[i]
		if cost, _, busy := k.weigh(ls, e, now); cost > 0 || busy {
			idle = false
			continue
		}
		sh.drop(e)
		sh.limbo.drop(e)
		sh.unlist(e)
		e.gone = true
	}
	return idle
}
