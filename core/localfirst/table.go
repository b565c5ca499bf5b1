package localfirst

import (
	"context"
	"crypto/sha256"
	"fmt"
	"hash/maphash"
	"slices"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/store"
)

// keyset is the per-key state of a bound policy on this node: the table
// Bind returns and those Rebind makes from it decide on the same keyset,
// and the rounds sync it once, with the limits of the latest table.
type keyset struct {
	s      *Store
	name   string            // the policy's name, for errors
	fp     [sha256.Size]byte // the policy's shape (see shape): its Redis keys
	seed   maphash.Seed
	shards []shard
	per    int                    // keys per shard
	lims   atomic.Pointer[limits] // the limits the rounds use: the latest table's
	vers   atomic.Uint64          // the tables Rebind made
	// users is held by the keyset's tables (Bind's and Rebind's): once
	// no limiter holds one, it is collected, and the rounds push what the
	// keyset still holds and release it (see Store.prune).
	users weak.Pointer[users]
}

// users is what the tables of a keyset share: while a table is in use,
// so is its keyset. (It holds a pointer so as not to be a tiny object,
// which the runtime may keep alive with its neighbours.)
type users struct{ k *keyset }

// limits are the limits of one table of a keyset, and its version: 0 for
// the table Bind made, n for the nth Rebind.
type limits struct {
	ls  []lim
	ver uint64
}

// table decides one policy on a keyset; see store.Table.
type table struct {
	k   *keyset
	u   *users
	p   *core.Policy
	ls  []lim
	ver uint64
}

// shard is one locked part of a keyset: its entries by key (idx, at most
// the keyset's per), the entries it evicted and still keeps (limbo, at
// most limboCap: see forget.go), every entry a round must visit (list:
// those of idx and limbo, and reset ones with units in flight), and the
// keys it forgot before their state recovered (forgot: the hash, and when
// the state would have recovered; at most forgotCap).
type shard struct {
	mu     sync.Mutex
	idx    index
	limbo  index
	list   []*entry
	forgot notes
}

// get returns key's entry, nil when it has none.
func (sh *shard) get(h uint64, key string) *entry { return sh.idx.get(h, key) }

// drop removes e from sh's index, if it is there.
func (sh *shard) drop(e *entry) { sh.idx.drop(e) }

// entry is one key's state on this node: what a decision reads first, then
// what the rounds use.
type entry struct {
	key string
	h   uint64 // the key's hash
	// ws holds two slots per window limit (by window parity), bs one
	// bucket per bucket limit; newest is, per limit, the newest window a
	// take was counted in.
	ws []slot
	bs []bucket
	// okAt is when the round that last read the entry back began (the
	// store's clock); ver is the version of the limits (see limits) it
	// claimed under.
	okAt    int64
	ver     uint64
	want    bool // a decision asks the next round to read the key (see table.decide)
	confirm bool // the last round pushed the key's units: the next one reads it again
	failed  bool // a call of the round in progress failed
	retry   bool // a call of the last round that read it failed
	gone    bool // evicted or reset: no longer in its shard's map
	// forgot, when set, is when the state of a key the shard forgot
	// (evicted and dropped) would have recovered, own what it counted (its
	// note), and floor the most it may have counted (own, or what a key
	// forgotten without a note counted: see notes): until then, or until
	// a round reads the key back, this entry, made when the key returned,
	// decides as if floor were confirmed (see table.share).
	forgot, own, floor int64
	pos                int // the entry's place in its shard's list
	newest             [core.MaxLimits]int64
	sh                 *shard // set by the first round
	field              string // the key's field in Redis (a digest), set by the first round that sends it
	tag                string // the key's hash tag, set with field
	readVer            uint64 // the version of the limits of the round in progress
}

// entry1 and entryB are entries of a policy of one window limit or one
// bucket limit and its state, in one allocation.
type entry1 struct {
	entry
	slots [2]slot
}

type entryB struct {
	entry
	b [1]bucket
}

// newKeyset returns a keyset for p and its users, which its tables must
// hold.
func newKeyset(s *Store, p *core.Policy, ls []lim) (*keyset, *users) {
	n, per := shards(s.opts.MaxKeys)
	k := &keyset{s: s, name: p.Name(), fp: shape(p, ls), seed: maphash.MakeSeed(), shards: make([]shard, n), per: per}
	k.lims.Store(&limits{ls: ls})
	u := &users{k: k}
	k.users = weak.Make(u)
	return k, u
}

// shards returns how many shards a keyset of MaxKeys maxKeys has (up to
// 64, with at least 16 keys each when it can), and how many keys each
// indexes: n·per ≤ maxKeys.
func shards(maxKeys int) (n, per int) {
	n = 64
	for n > 1 && maxKeys/n < 16 {
		n /= 2
	}
	return n, max(1, maxKeys/n)
}

// unused reports whether no table of k is in use any more.
func (k *keyset) unused() bool { return k.users.Value() == nil }

// empty reports whether k lists no entry: an unused keyset with nothing
// left to push.
func (k *keyset) empty() bool {
	for i := range k.shards {
		sh := &k.shards[i]
		sh.mu.Lock()
		n := len(sh.list)
		sh.mu.Unlock()
		if n > 0 {
			return false
		}
	}
	return true
}

// shard returns key's shard and hash.
func (k *keyset) shard(key string) (*shard, uint64) {
	h := maphash.String(k.seed, key)
	return &k.shards[h&uint64(len(k.shards)-1)], h
}

// join returns the version of the limits ls of a table bound or rebound
// to k: the latest limits' when ls are those, else ls become the latest.
func (k *keyset) join(ls []lim) uint64 {
	if cur := k.lims.Load(); slices.Equal(cur.ls, ls) {
		return cur.ver
	}
	ver := k.vers.Add(1)
	k.lims.Store(&limits{ls: ls, ver: ver})
	return ver
}

// Rebind returns a table deciding p on t's keys (see core.Rebinder): every
// count, lease and share is kept, and read under p's limits from the next
// decision on (a lease granted under other limits is cut to the node's
// share of the new burst); the rounds sync with p's limits from then on. p must have
// t's shape: the same limits (by kind and, for windows, window) in the
// same order; core.Limiter.SetPolicy checks the rest.
func (t *table) Rebind(p *core.Policy) (store.Table, error) {
	ls, err := t.rebindLimits(p)
	if err != nil {
		return nil, err
	}
	return &table{k: t.k, u: t.u, p: p, ls: ls, ver: t.k.join(ls)}, nil
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
	sh, h := t.k.shard(req.Key)
	sh.mu.Lock()
	e := sh.get(h, req.Key)
	if e == nil && req.Op != store.OpTake {
		// An evicted entry the shard keeps still answers peeks and
		// refunds (a refund's negative count is pushed like its units).
		e = sh.limbo.get(h, req.Key)
	}
	if e == nil {
		if req.Op != store.OpTake {
			forgot, own, lost := sh.forgot.peek(h, req.Now)
			sh.mu.Unlock()
			// Nothing to peek at or give back: a key never seen here.
			// (Refunds only give back what this node holds unsynced or
			// read; the units are then in Redis, where they expire.)
			if req.Op == store.OpRefund {
				req.Cost = 1
			}
			req.Op = store.OpPeek
			var zero entryB
			var ws [2 * store.MaxLimits]slot
			var bs [store.MaxLimits]bucket
			zero.ws, zero.bs = ws[:], bs[:]
			zero.forgot, zero.floor = forgot, max(own, lost)
			t.decide(&zero.entry, req, false, &d)
			return d, nil
		}
		e = t.insert(sh, h, req.Key, req.Now)
	}
	if req.Op == store.OpRefund {
		t.refund(e, req)
		req.Op, req.Cost = store.OpPeek, 1
	}
	t.decide(e, req, true, &d)
	sh.mu.Unlock()
	return d, nil
}

// decide decides req (a take or a peek) on e, under its shard's lock when
// e is in a keyset (locked): every limit decides, and a take commits only
// when all of them admit it. A take a window limit denies asks the next
// round to read the key (a bucket counts its demand itself).
func (t *table) decide(e *entry, req store.Request, locked bool, d *store.Decision) {
	d.At = req.Now
	period := int64(t.k.s.opts.SyncPeriod)
	take := locked && req.Op == store.OpTake
	var idx [store.MaxLimits]int64 // each window limit's window
	var lease, short [store.MaxLimits]bool
	var nv, nvl [store.MaxLimits]int64     // each bucket's view after the take
	var units, paid [store.MaxLimits]int64 // each bucket's cost in the units its rounds push, and what it prepays
	lat := t.k.lims.Load()
	all := true
	for i := range t.ls {
		l := &t.ls[i]
		if l.kind.bucket() {
			units[i], paid[i] = t.pushUnits(lat, i, req.Cost, e.bs[l.at].paid)
			nv[i], nvl[i], lease[i], short[i] = t.peekBucket(&d.Outcomes[i], l, &e.bs[l.at], req.Now, req.Cost, units[i], lat, i, e.forgot > req.Now && e.floor > 0)
		} else {
			var v view
			l.look(&v, e.ws[l.at:l.at+2], req.Now, e.newest[i])
			div, claims, cap := t.share(e, &v, req.Now)
			short[i] = l.decide(&d.Outcomes[i], &v, req.Now, req.Cost, div, claims, cap, period)
			idx[i] = v.idx
			if take && !d.Outcomes[i].Allowed {
				e.want = true
			}
		}
		all = all && d.Outcomes[i].Allowed
	}
	d.Taken = all && req.Op == store.OpTake
	for i := range t.ls {
		l := &t.ls[i]
		if l.kind.bucket() {
			b := &e.bs[l.at]
			if take && req.Cost <= l.burst {
				// In the units the lease is granted and spent in: a
				// table of other rates asking for its own costs asked
				// for a lease that paid for none of its takes (a route
				// at ten times the latest's interval was denied every
				// other round: TestAttackSharedBucketTightRouteLeaseTooSmall).
				b.ask(units[i], d.Taken)
			}
			switch {
			case d.Taken:
				t.takeBucket(l, b, req.Now, req.Cost, units[i], nv[i], nvl[i], lease[i])
				b.paid = paid[i]
			case !all && d.Outcomes[i].Allowed:
				t.peekBucket(&d.Outcomes[i], l, b, req.Now, 0, 0, lat, i, false)
			}
			continue
		}
		switch {
		case d.Taken:
			s := at(e.ws[l.at:l.at+2], idx[i], true)
			s.delta += req.Cost
			s.own += req.Cost
			e.newest[i] = max(e.newest[i], idx[i])
		case !all && d.Outcomes[i].Allowed:
			// Nothing is taken: report this limit's state as it stands.
			var v view
			l.look(&v, e.ws[l.at:l.at+2], req.Now, e.newest[i])
			l.decide(&d.Outcomes[i], &v, req.Now, 0, 0, 0, -1, 0)
		}
	}
}

// share returns the divisor of what a node knows remains of a window, the
// other nodes' claims to deduct and a cap (−1: none) on what the node
// holds unconfirmed (see the package documentation): while this node's
// claim on the window, made by the last round that read it, lives, the
// claim's divisor and the others' claims, with the claim as made for a
// cap (a raised limit is not handed whole to every node holding a claim,
// nor the room a SlidingWindow's previous window frees as it decays:
// each node dividing it by its own claim's divisor, the fleet took it
// about H(nodes) times), but for a node alone (Nodes 1) under the limits
// it claimed with; else, with no claim deducted, the most of Nodes and the
// nodes seen registered in the previous window or the current one.
func (t *table) share(e *entry, v *view, now int64) (div, claims, cap int64) {
	n := int64(t.k.s.opts.Nodes)
	switch {
	case e.forgot > now:
		// A key the shard forgot before its window recovered: as a stale
		// view whose confirmed count is what the key counted (the floor,
		// deducted as a claim; its count is in Redis) until a round reads
		// it.
		return max(n, v.others+1), e.floor, -1
	case v.div > 0 && now-e.okAt < t.k.s.life() && t.claims(e):
		cap = v.claim
		if e.ver == t.ver && t.k.s.opts.Nodes == 1 {
			cap = -1 // alone: all the room decay frees is its own
		}
		return v.div, v.claims, cap
	}
	// No live claim: a stale view, or the first units of a window no
	// round has read yet. The nodes seen registered in the previous
	// window are those registered before this node's last read of it:
	// nodes registering after it (in the same round of registrations)
	// would each divide by their own count, 1, 2, … N (the fleet's first
	// units H(N)·Limit), so Nodes at least.
	return max(n, v.others+1), 0, -1
}

// claims reports whether t decides on the claims e's last read made: made
// under t's limits, or t is the latest table (a SetPolicy's, spending the
// claims made under the former limits until the next round). A table of
// other limits sharing the keyset (two routes of one name and shape, other
// quotas) decides as on a stale view: the claims, sized for the latest
// limits' room, would cap a looser table at a tighter one's quota, and
// deny a tighter one whatever its count once a looser one's claims live on
// the other nodes.
func (t *table) claims(e *entry) bool {
	return e.ver == t.ver || t.ver == t.k.lims.Load().ver
}

// pushUnits returns cost units of t's bucket limit i in the units the
// rounds push and lease, those of the latest limits lat (see limits), and
// what the bucket has prepaid after them (in ns of refill time, below one
// of those units), with paid, what its former takes prepaid, spent first.
// The rounds push a keyset's units under the latest table's limits; a
// table of other rates sharing the keyset (two routes of one name and
// shape, 10/min and 100/min) has its units charged at its own interval:
// each of the 10/min route's units at 6 s, not at the 100/min route's
// 0.6 s, which admitted it ten times its rate
// (TestAttackSharedBucketChargedAtOtherRate), and the 100/min route's at
// 0.6 s, not rounded up to the 10/min route's 6 s. The part of a unit a
// take starts is charged whole, the rest prepaid for the next takes, so
// that Redis never counts less than the node admitted: carried uncharged
// instead, each node held up to a unit its rounds did not push, a whole
// bucket of a 60/min route beside a 1/min one, which no view, share or
// lease saw, and two nodes admitted 191 in ten seconds, bound about 135
// (TestAttackSharedBucketCoarseLatestUnitUncharged). A cost beyond t's
// burst, which it denies, is returned as is.
func (t *table) pushUnits(lat *limits, i int, cost, paid int64) (units, left int64) {
	l := &t.ls[i]
	if lat.ver == t.ver || cost > l.burst {
		return cost, paid
	}
	iv := lat.ls[i].interval
	if iv == l.interval || iv <= 0 {
		return cost, paid
	}
	n := cost*l.interval - paid // at most the burst's refill time, within a day
	if n <= 0 {
		return 0, -n
	}
	units = (n + iv - 1) / iv
	return units, units*iv - n
}

// unitsBack returns n units of t's bucket limit i given back in the units
// of the latest limits lat, rounded down (see pushUnits): a refund never
// gives back more than its take was charged.
func (t *table) unitsBack(lat *limits, i int, n int64) int64 {
	l := &t.ls[i]
	if iv := lat.ls[i].interval; lat.ver != t.ver && iv != l.interval && iv > 0 {
		return n * l.interval / iv // n ≤ the burst: within a day
	}
	return n
}

// guess is how many nodes share the key, from the windows read: Nodes
// without evidence.
func (s *Store) guess(v *view) int64 {
	if v.others < 0 {
		return int64(s.opts.Nodes)
	}
	return v.others + 1
}

// refund gives back req.Cost taken at req.Taken, limit by limit, as far as
// the take still holds it: for a window, from the window it was counted in
// while that window still counts (a FixedWindow's current window, a
// SlidingWindow's current or previous one); for a bucket, see
// refundBucket.
func (t *table) refund(e *entry, req store.Request) {
	lat := t.k.lims.Load()
	for i := range t.ls {
		l := &t.ls[i]
		h := req.Holds[i]
		if h <= 0 || req.Now >= req.Taken+h {
			continue
		}
		if l.kind.bucket() {
			t.refundBucket(lat, i, &e.bs[l.at], req.Now, req.Taken+h, req.Cost)
			continue
		}
		idx := spanIndex(req.Taken, l.window)
		if l.kind == kindFixed && idx != e.newest[i] {
			continue
		}
		if s := at(e.ws[l.at:l.at+2], idx, false); s != nil {
			give := min(req.Cost, s.count())
			s.delta -= give
			s.own -= min(give, s.own)
		}
	}
}

// insert returns an entry for key (of hash h), which sh (locked) does
// not index, indexed: the entry the shard evicted and still keeps in its
// limbo (its state intact), else a new one (admitting nothing until a
// round reads it when the shard forgot the key before its state
// recovered). A full shard makes room first (see evict).
func (t *table) insert(sh *shard, h uint64, key string, now int64) *entry {
	if e := sh.limbo.get(h, key); e != nil {
		sh.limbo.drop(e)
		e.gone = false
		t.evict(sh, h, now)
		sh.idx.put(e)
		return e
	}
	forgot, own, lost := sh.forgot.take(h, now)
	t.evict(sh, h, now)
	var e *entry
	var windows, buckets int
	for i := range t.ls {
		if t.ls[i].kind.bucket() {
			buckets++
		} else {
			windows++
		}
	}
	switch {
	case windows == 1 && buckets == 0:
		one := &entry1{entry: entry{key: key, h: h}}
		e = &one.entry
		e.ws = one.slots[:]
	case windows == 0 && buckets == 1:
		one := &entryB{entry: entry{key: key, h: h}}
		e = &one.entry
		e.bs = one.b[:]
	default:
		e = &entry{key: key, h: h, ws: make([]slot, 2*windows), bs: make([]bucket, buckets)}
	}
	e.forgot, e.own, e.floor = forgot, own, max(own, lost)
	sh.idx.put(e)
	e.pos = len(sh.list)
	sh.list = append(sh.list, e)
	return e
}

// reset forgets req.Key on this node and deletes its fields in Redis: the
// windows around req.Now, the spans of its buckets. Other nodes read the
// deleted counts at their next round that reads the key; units they
// admitted and had not pushed yet still count, and leases they hold are
// still spent.
func (t *table) reset(ctx context.Context, req store.Request) error {
	sh, h := t.k.shard(req.Key)
	sh.mu.Lock()
	for _, e := range [...]*entry{sh.get(h, req.Key), sh.limbo.get(h, req.Key)} {
		if e != nil {
			// Forgotten at once: nothing left to push (a reply of a round
			// in flight lands on the dropped entry).
			sh.drop(e)
			sh.limbo.drop(e)
			sh.unlist(e)
			e.gone = true
			clear(e.ws)
			clear(e.bs)
		}
	}
	delete(sh.forgot.at, h)
	sh.mu.Unlock()
	field, tag := t.k.field(req.Key)
	ctx, cancel := context.WithTimeout(ctx, t.k.s.opts.Timeout)
	defer cancel()
	pipe := t.k.s.client.Pipeline()
	for i := range t.ls {
		l := &t.ls[i]
		if l.kind.bucket() {
			j := spanIndex(req.Now, l.span)
			for d := int64(-1); d <= 0; d++ {
				pipe.HDel(ctx, t.k.bucketHash(tag, i, l.span, j+d), field)
			}
			continue
		}
		idx := spanIndex(req.Now, l.window)
		for d := int64(-1); d <= 1; d++ {
			pipe.HDel(ctx, t.k.windowHash(tag, i, idx+d), field)
		}
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("localfirst: policy %q: reset: %w", t.p.Name(), err)
	}
	return nil
}
