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

// shardIdle is Idle for one shard, locked while it looks.
func (k *keyset) shardIdle(sh *shard, ls []lim, now int64) bool {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.forgot.lost.until > now {
		return false
	}
	for _, n := range sh.forgot.at {
		if n.until > now {
			return false
		}
	}
	for _, e := range sh.list {
		if cost, _, busy := k.weigh(ls, e, now); cost > 0 || busy {
			return false
		}
	}
	return true
}
