package localfirst

import (
	"context"
	"crypto/sha256"
	"fmt"
	"hash/maphash"
	"sync"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/store"
)

// table decides one policy in memory; the store's rounds sync it.
type table struct {
	s      *Store
	p      *core.Policy
	cs     []counter
	fp     [sha256.Size]byte // policy fingerprint: a changed policy counts in other keys
	seed   maphash.Seed
	shards []shard
	per    int // keys per shard
}

// shard is one locked part of a table: the entries by the key's hash (a
// key whose hash another key holds goes to byKey), and every entry a round
// must visit (also those evicted with units to push).
type shard struct {
	mu    sync.Mutex
	m     map[uint64]*entry
	byKey map[string]*entry // collisions of m: nil until one happens
	list  []*entry
}

// get returns key's entry, nil when it has none.
func (sh *shard) get(h uint64, key string) *entry {
	e := sh.m[h]
	if e != nil && e.key != key {
		e = sh.byKey[key]
	}
	return e
}

// drop removes e from sh's maps, if it is there.
func (sh *shard) drop(e *entry) {
	if sh.m[e.h] == e {
		delete(sh.m, e.h)
	} else if sh.byKey[e.key] == e {
		delete(sh.byKey, e.key)
	}
}

func (sh *shard) size() int { return len(sh.m) + len(sh.byKey) }

// entry is one key's windows on this node.
type entry struct {
	key  string
	h    uint64 // the key's hash
	sh   *shard // set by the first round
	name string // Redis key prefix, set by the first round that sends it
	// ws holds two slots per limit (by window parity); newest is, per
	// limit, the newest window a take was counted in.
	ws     []slot
	newest [core.MaxLimits]int64
	// okRound is the round that last read every window of the entry back,
	// at okAt (the store's clock); touched is the store's round when the
	// entry was last decided.
	okRound, touched uint64
	okAt             int64
	failed           bool // a call of the round in progress failed
	retry            bool // a call of the last round that read it failed
	gone             bool // evicted or reset: no longer in its shard's map
}

// entry1 is an entry of a policy of one limit and its two slots, in one
// allocation (an entry of several limits carries no unused slots).
type entry1 struct {
	entry
	slots [2]slot
}

func newTable(s *Store, p *core.Policy, cs []counter) *table {
	n := 64
	for n > 1 && s.opts.MaxKeys/n < 16 {
		n /= 2
	}
	t := &table{s: s, p: p, cs: cs, seed: maphash.MakeSeed(), shards: make([]shard, n), per: max(1, s.opts.MaxKeys/n)}
	t.fp = sha256.Sum256(fmt.Appendf(nil, "floodgate localfirst 1|%q|%#v", p.Name(), p.Limits()))
	for i := range t.shards {
		t.shards[i].m = map[uint64]*entry{}
	}
	return t
}

// shard returns key's shard and hash.
func (t *table) shard(key string) (*shard, uint64) {
	h := maphash.String(t.seed, key)
	return &t.shards[h&uint64(len(t.shards)-1)], h
}

// Do applies req in memory; see store.Table. Only OpReset waits for Redis.
func (t *table) Do(ctx context.Context, req store.Request) (d store.Decision, err error) {
	switch {
	case req.Op > store.OpReset:
		return store.Decision{}, fmt.Errorf("localfirst: unknown op %d: %w", req.Op, core.ErrInvalidConfig)
	case req.Now < 0:
		return store.Decision{}, fmt.Errorf("localfirst: now %d: %w", req.Now, core.ErrClock)
	case (req.Op == store.OpTake || req.Op == store.OpPeek) && req.Cost < 1:
		return store.Decision{}, fmt.Errorf("localfirst: cost %d: %w", req.Cost, core.ErrInvalidCost)
	case req.Op == store.OpReset:
		return store.Decision{}, t.reset(ctx, req)
	}
	sh, h := t.shard(req.Key)
	sh.mu.Lock()
	e := sh.get(h, req.Key)
	if e == nil {
		if req.Op != store.OpTake {
			sh.mu.Unlock()
			// Nothing to peek at or give back: a key never seen here.
			// (Refunds only give back what this node holds unsynced or
			// read; the units are then in Redis, where they expire.)
			if req.Op == store.OpRefund {
				req.Cost = 1
			}
			req.Op = store.OpPeek
			var zero entry
			var ws [2 * store.MaxLimits]slot
			zero.ws = ws[:2*len(t.cs)]
			t.decide(&zero, req, false, &d)
			return d, nil
		}
		e = t.insert(sh, h, req.Key)
	}
	if r := t.s.round.Load(); e.touched != r {
		e.touched = r
	}
	if req.Op == store.OpRefund {
		t.refund(e, req)
		req.Op, req.Cost = store.OpPeek, 1
	}
	t.decide(e, req, true, &d)
	sh.mu.Unlock()
	return d, nil
}

// stale reports whether e's view may be older than the last round: no
// round read it back since, or the rounds stopped.
func (t *table) stale(e *entry, now int64) bool {
	o := &t.s.opts
	return e.okRound != t.s.round.Load() || now-e.okAt >= int64(2*o.SyncPeriod+o.Timeout)
}

// decide decides req (a take or a peek) on e, under its shard's lock when
// e is in a table (locked).
func (t *table) decide(e *entry, req store.Request, locked bool, d *store.Decision) {
	d.At = req.Now
	stale := !locked || t.stale(e, req.Now)
	retry := int64(t.s.opts.SyncPeriod)
	var idx [store.MaxLimits]int64 // each limit's window
	all := true
	for i := range t.cs {
		c := &t.cs[i]
		var v view
		c.look(&v, e.ws[2*i:2*i+2], req.Now, e.newest[i])
		div, claims := t.share(e, &v, req.Now, stale)
		d.Outcomes[i] = c.decide(&v, req.Now, req.Cost, div, claims, retry)
		idx[i] = v.idx
		all = all && d.Outcomes[i].Allowed
	}
	d.Taken = all && req.Op == store.OpTake
	for i := range t.cs {
		switch {
		case d.Taken:
			s := at(e.ws[2*i:2*i+2], idx[i], true)
			s.delta += req.Cost
			e.newest[i] = max(e.newest[i], idx[i])
		case !all && d.Outcomes[i].Allowed:
			// Nothing is taken: report this limit's state as it stands.
			c := &t.cs[i]
			var v view
			c.look(&v, e.ws[2*i:2*i+2], req.Now, e.newest[i])
			d.Outcomes[i] = c.decide(&v, req.Now, 0, 0, 0, 0)
		}
	}
}

// share returns the divisor of what a node knows remains of a window and
// the other nodes' claims to deduct (see the package documentation): while
// this node's claim on the window, made by the last round that read it,
// lives, the claim's divisor and the others' claims; else, with no claim
// deducted, Nodes when the view is stale or no node was seen registered in
// the previous window, and otherwise the most nodes seen registered in it
// or the current one.
func (t *table) share(e *entry, v *view, now int64, stale bool) (div, claims int64) {
	n := int64(t.s.opts.Nodes)
	switch {
	case v.div > 0 && now-e.okAt < t.s.life():
		return v.div, v.claims
	case stale:
		return max(n, v.others+1), 0
	}
	return t.guess(v), 0
}

// guess is how many nodes share the key, from the windows read: Nodes
// without evidence.
func (t *table) guess(v *view) int64 {
	if v.others < 0 {
		return int64(t.s.opts.Nodes)
	}
	return v.others + 1
}

// refund gives back req.Cost taken at req.Taken, limit by limit, from the
// window it was counted in while that window still counts and the take's
// hold lasts: a FixedWindow's current window, a SlidingWindow's current or
// previous one.
func (t *table) refund(e *entry, req store.Request) {
	for i := range t.cs {
		c := &t.cs[i]
		h := req.Holds[i]
		if h <= 0 || req.Now >= req.Taken+h {
			continue
		}
		idx := spanIndex(req.Taken, c.window)
		if !c.sliding && idx != e.newest[i] {
			continue
		}
		if s := at(e.ws[2*i:2*i+2], idx, false); s != nil {
			s.delta -= min(req.Cost, s.count())
		}
	}
}

// insert adds an entry for key to sh (locked), making room when sh is
// full by dropping an arbitrary entry (Go's map order is randomised): its
// unsynced units stay on the shard's list for the next round, and a key
// that returns is stale until a round reads it, so it holds at most its
// share.
func (t *table) insert(sh *shard, h uint64, key string) *entry {
	if sh.size() >= t.per {
		for _, old := range sh.m {
			sh.drop(old)
			old.gone = true
			break
		}
	}
	var e *entry
	if len(t.cs) == 1 {
		// One allocation, the slots next to the entry.
		one := &entry1{entry: entry{key: key, h: h}}
		e = &one.entry
		e.ws = one.slots[:]
	} else {
		e = &entry{key: key, h: h, ws: make([]slot, 2*len(t.cs))}
	}
	if sh.m[h] == nil {
		sh.m[h] = e
	} else {
		if sh.byKey == nil {
			sh.byKey = map[string]*entry{}
		}
		sh.byKey[key] = e
	}
	sh.list = append(sh.list, e)
	return e
}

// reset forgets req.Key on this node and deletes its counters of the
// windows around req.Now in Redis. Other nodes read the deleted counters
// at their next round; units they admitted and had not pushed yet still
// count.
func (t *table) reset(ctx context.Context, req store.Request) error {
	sh, h := t.shard(req.Key)
	sh.mu.Lock()
	if e := sh.get(h, req.Key); e != nil {
		sh.drop(e)
		e.gone = true
		clear(e.ws)
	}
	sh.mu.Unlock()
	name := t.name(req.Key)
	var keys []string
	for i := range t.cs {
		idx := spanIndex(req.Now, t.cs[i].window)
		for d := int64(-1); d <= 1; d++ {
			keys = append(keys, counterKey(name, i, idx+d))
		}
	}
	ctx, cancel := context.WithTimeout(ctx, t.s.opts.Timeout)
	defer cancel()
	if err := t.s.client.Del(ctx, keys...).Err(); err != nil {
		return fmt.Errorf("localfirst: policy %q: reset: %w", t.p.Name(), err)
	}
	return nil
}
