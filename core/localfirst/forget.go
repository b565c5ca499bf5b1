package localfirst

import "github.com/floodgate-go/floodgate/core/store"

// This file holds what a full shard forgets, and what it remembers of it
// (see the package documentation, "Memory"). A shard indexes at most per
// keys (the keyset's MaxKeys/shards). To index a new key in a full shard
// it evicts, among the entries within evictScan slots of the new key's
// home slot, the one whose forgetting admits least, as the in-memory store
// does (core's evictCheapest): an entry with nothing to forget first (its
// windows and buckets recovered, nothing to push or give back, no live
// claim or lease), else the one whose view counts fewest units not yet
// recovered, else the nearest to recovery. An evicted entry that still
// counts or holds units to push goes to the shard's limbo, at most
// limboCap entries: the rounds push its units, and a key that returns
// gets it back whole. A limbo over its bound drops its own cheapest entry
// (units of windows that ended and buckets that refilled count for
// nothing, so those first), whose unpushed units are lost (Redis counts
// less) and whose key the shard notes in forgot, with what it counted
// (its cost), until that would have recovered: at most forgotCap notes,
// the oldest dropped first into a summary of what the keys forgotten
// without a note counted (the most), which stands for any key new to the
// shard until it recovers. A key that returns forgotten decides as on a
// stale view whose confirmed count is what it counted (see table.share)
// until a round reads its count back; a bucket's admits nothing until
// then.

// evictScan is how many index slots from a new key's home slot a full
// shard examines for the entry to evict (core's evictScan).
const evictScan = 64

// limboCap is how many evicted entries a shard of per keys keeps.
func limboCap(per int) int { return max(1, per/4) }

// forgotCap is how many forgotten keys a shard of per keys remembers: as
// many as it indexes, and at least 16.
func forgotCap(per int) int { return max(16, per) }

// weigh returns what forgetting e at now admits under the limits ls (cost:
// the most units any limit's view counts that have not recovered, core's
// forgetCost), when all of them will have (until: 0 when cost is 0), and
// whether e holds what forgetting would lose besides (busy: units to push
// or in flight, a lease or what one left to give back, a live claim; what
// a bucket prepaid, see table.pushUnits, is charged already).
func (k *keyset) weigh(ls []lim, e *entry, now int64) (cost, until int64, busy bool) {
	life := k.s.life()
	for i := range ls {
		l := &ls[i]
		var o store.Outcome
		if l.kind.bucket() {
			b := &e.bs[l.at]
			busy = busy || b.unconf != 0 || b.inflight != 0 || b.frozen > 0 || b.credit > 0 && now < b.exp
			l.take(&o, b.v, b.vl, 1, now, 0)
			if c := l.burst - o.Remaining; c > 0 {
				cost, until = max(cost, c), max(until, now+int64(o.ResetAfter))
			}
			continue
		}
		ws := e.ws[l.at : l.at+2]
		for j := range ws {
			busy = busy || ws[j].delta != 0 || ws[j].inflight != 0
		}
		var v view
		l.look(&v, ws, now, e.newest[i])
		busy = busy || v.div > 0 && v.claim > 0 && now-e.okAt < life
		if c := l.used(&v, v.prev, v.curr); c > 0 {
			l.decide(&o, &v, now, 0, 0, 0, -1, 0)
			cost, until = max(cost, c), max(until, now+int64(o.ResetAfter))
		}
	}
	if e.forgot > now && e.own > 0 {
		// What the key counted when forgotten, not read back since.
		cost, until = cost+e.own, max(until, e.forgot)
	}
	if cost == 0 {
		until = 0
	}
	return cost, until, busy
}

// cheaper reports whether an entry weighed (c, u, b) is cheaper to forget
// than one weighed (bc, bu, bb): fewer units, then not busy, then nearer
// to recovery.
func cheaper(c, u int64, b bool, bc, bu int64, bb bool) bool {
	switch {
	case c != bc:
		return c < bc
	case b != bb:
		return !b
	}
	return u < bu
}

// cheapest returns the entry of x within evictScan slots of h's home slot
// (further if need be, when x holds any) whose forgetting at now admits
// least, and its weight; nil when x is empty.
func (k *keyset) cheapest(x *index, ls []lim, h uint64, now int64) (best *entry, cost, until int64, busy bool) {
	n := len(x.tab)
	if x.live == 0 || n == 0 {
		return nil, 0, 0, false
	}
	i := x.slot(h)
	for s := 0; s < n && (s < evictScan || best == nil); s++ {
		e := x.tab[(i+uint64(s))&uint64(n-1)].e
		if e == nil || e == tomb {
			continue
		}
		c, u, b := k.weigh(ls, e, now)
		if best == nil || cheaper(c, u, b, cost, until, busy) {
			best, cost, until, busy = e, c, u, b
			if c == 0 && !b {
				break // forgetting it admits nothing
			}
		}
	}
	return best, cost, until, busy
}

// evict makes room in sh (locked) for a new key of hash h when its index
// is full: see the top of this file.
func (t *table) evict(sh *shard, h uint64, now int64) {
	k := t.k
	if sh.idx.live < k.per {
		return
	}
	e, cost, _, busy := k.cheapest(&sh.idx, t.ls, h, now)
	if e == nil {
		return
	}
	sh.drop(e)
	e.gone = true
	if cost == 0 && !busy {
		sh.unlist(e) // nothing to forget
		return
	}
	sh.limbo.put(e)
	if sh.limbo.live <= limboCap(k.per) {
		return
	}
	d, cost, until, _ := k.cheapest(&sh.limbo, t.ls, h, now)
	sh.limbo.drop(d)
	sh.unlist(d)
	if until > now {
		sh.forgot.add(d.h, until, cost, forgotCap(k.per), now)
	}
}

// unlist removes e from sh's list (sh locked), if it is there.
func (sh *shard) unlist(e *entry) {
	i := e.pos
	if i < 0 || i >= len(sh.list) || sh.list[i] != e {
		return
	}
	last := len(sh.list) - 1
	sh.list[i] = sh.list[last]
	sh.list[i].pos = i
	sh.list[last] = nil
	sh.list = sh.list[:last]
}

// notes are the keys a shard forgot before their state recovered: by
// hash, what the key counted and when that will have recovered; at most a
// bound, the oldest note dropped first when full. lost sums up the notes
// dropped before they recovered (the most units, the latest recovery): a
// key the shard may have forgotten without a note.
type notes struct {
	at   map[uint64]note
	ring []uint64 // the hashes noted, in order from head (at most the bound)
	head int
	seq  int64 // notes taken so far
	lost note
}

// note is what a forgotten key counted (cost: units of a window, or of a
// bucket's debt, the most over its limits) and when that will have
// recovered (until), and the note's place in the order taken (the ring
// slot of a note since replaced drops nothing).
type note struct{ until, cost, seq int64 }

// take returns and drops the note of hash h: when it recovers (0: no
// note, or recovered by now), what the key counted when forgotten (own),
// and what a key new to the shard may have counted (lost, while it holds).
func (n *notes) take(h uint64, now int64) (until, own, lost int64) {
	until, own, lost = n.peek(h, now)
	delete(n.at, h)
	return until, own, lost
}

// peek is take without dropping the note.
func (n *notes) peek(h uint64, now int64) (until, own, lost int64) {
	if u, ok := n.at[h]; ok && u.until > now {
		until, own = u.until, u.cost
	}
	if n.lost.until > now {
		until, lost = max(until, n.lost.until), n.lost.cost
	}
	return until, own, lost
}

// add notes that the key of hash h counted cost until until, dropping the
// oldest note into lost when limit are held.
func (n *notes) add(h uint64, until, cost int64, limit int, now int64) {
	if n.at == nil {
		n.at = map[uint64]note{}
	}
	if u, ok := n.at[h]; ok && u.until > now {
		until, cost = max(until, u.until), max(cost, u.cost)
	}
	n.seq++
	if len(n.ring) == limit {
		old := n.ring[n.head]
		if v, ok := n.at[old]; ok && v.seq == n.seq-int64(limit) {
			delete(n.at, old)
			if v.until > now {
				if n.lost.until <= now {
					n.lost = note{}
				}
				n.lost.until, n.lost.cost = max(n.lost.until, v.until), max(n.lost.cost, v.cost)
			}
		}
		n.ring[n.head] = h
		n.head = (n.head + 1) % limit
	} else {
		n.ring = append(n.ring, h)
	}
	n.at[h] = note{until, cost, n.seq}
}
