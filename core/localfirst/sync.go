package localfirst

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/floodgate-go/floodgate/internal/circuit"
)

// item is one limit of one key in a round: a window counter, or a bucket.
type item struct {
	e    *entry
	k    *keyset
	ls   []lim  // the limits the round syncs with
	ver  uint64 // a bucket's: their version
	li   int    // the limit's index
	kind byte   // 'w', 'g' or 't' (see sync.lua)
	s    *slot  // window: the slot its count goes back to; nil for a window that no longer counts: push only
	idx  int64  // window: the slot's window
	// hash is the item's Redis hash, prev the previous span's for a
	// bucket ("" for a window).
	hash, prev string
	push, ttl  int64
	// Window: x1 is the room (−1 for a window claimed nothing on), x2 the
	// guess of the nodes sharing the key, x3 what the node's live claim
	// still holds after the push (Redis never reserves less for it).
	// Bucket: what it gives back, the hold's end (ns since the span's
	// start), the units to lease, the guess.
	x1, x2, x3, x4 int64
}

// field returns key's field in Redis, the first 16 bytes of a SHA-256
// digest (no raw key reaches Redis), and its hash tag: the bucket the
// digest falls in on a Cluster or Ring, where every hash a call touches
// must share a slot, and "0" on a single Redis, where one call carries
// every key.
func (k *keyset) field(key string) (field, tag string) {
	h := sha256.New()
	h.Write(k.fp[:])
	h.Write([]byte(key))
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	tag = "0"
	if !k.s.single {
		tag = strconv.FormatUint(binary.BigEndian.Uint64(sum[:8])%uint64(k.s.opts.Buckets), 10)
	}
	return hex.EncodeToString(sum[:16]), tag
}

// prefix is the start of the keyset's hashes of tag: prefix{fingerprint:tag}.
func (k *keyset) prefix(tag string) string {
	var sb strings.Builder
	sb.WriteString(k.s.opts.Prefix)
	sb.WriteByte('{')
	sb.WriteString(hex.EncodeToString(k.fp[:8]))
	sb.WriteByte(':')
	sb.WriteString(tag)
	sb.WriteString("}:")
	return sb.String()
}

// windowHash is the hash of limit i's window idx; bucketHash the hash of
// limit i's span j (of span ns).
func (k *keyset) windowHash(tag string, i int, idx int64) string {
	return k.prefix(tag) + "w" + strconv.Itoa(i) + ":" + strconv.FormatInt(idx, 10)
}

func (k *keyset) bucketHash(tag string, i int, span, j int64) string {
	return k.prefix(tag) + "b" + strconv.Itoa(i) + "s" + strconv.FormatInt(span/1e9, 10) + ":" + strconv.FormatInt(j, 10)
}

// Sync runs one round: for every key with something to sync — units to
// push, a lease to give back, a decision that asked for a read (a denial
// by the node's share, or on an old view), a bucket whose demand calls for
// a lease — it pushes, reads the merged state back and claims (windows)
// or leases (buckets) the node's part of what remains, in one script call
// per MaxBatch keys and limits (on a Cluster or Ring, per bucket and
// MaxBatch), pipelined in one round trip (keys the node has read back
// before first, then keys new to it, about 4,096 items a pipeline, sent
// while within Timeout: see send). A key
// with nothing to sync costs nothing: it decides on its last read (see
// the package documentation).
//
// A call that fails leaves its units to the next round (a call whose reply
// was lost may have been applied: its units then count twice, which only
// denies more; what it gave back, a lease's leftover or a window's
// refunds beyond its admissions, is not given back again), and its keys
// stale until a round reads them. Run calls Sync every SyncPeriod; tests
// call it directly to drive the rounds.
func (s *Store) Sync(ctx context.Context) error {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	now, err := s.now()
	if err != nil {
		return err
	}
	s.mu.Lock()
	keysets := append([]*keyset(nil), s.keysets...)
	s.mu.Unlock()
	var items []item
	var entries []*entry
	for _, k := range keysets {
		ls := k.lims.Load()
		unused := k.unused()
		for i := range k.shards {
			sh := &k.shards[i]
			sh.mu.Lock()
			sh.list = k.collect(sh, ls, now, unused, sh.list[:0:0], &items, &entries)
			sh.mu.Unlock()
		}
	}
	name(items)
	reps, bad, unsent, err := s.send(ctx, now, items)
	for i := range items {
		it := &items[i]
		sh := it.e.sh
		sh.mu.Lock()
		if unsent[i] {
			s.unsent(it)
		} else if it.kind == 'w' {
			if it.s != nil && it.s.idx == it.idx {
				it.s.inflight -= it.push
				if bad[i] {
					// Pushed again by the next round: units admitted
					// (counted twice if the call was applied, which only
					// denies more), never units given back (a negative
					// push applied and pushed again gave them back twice:
					// the fleet admitted past the limit). Given back, or
					// lost with the call, as a bucket's lease.
					it.s.delta += max(it.push, 0)
				} else {
					r := &reps[i]
					// nodes and div are at most MaxNodes (or any guess of
					// a node: at most Nodes).
					it.s.global, it.s.claims, it.s.claim = r.n[0], r.n[2], r.n[4]
					it.s.nodes, it.s.div = int32(min(r.n[1], 1<<31-1)), int32(min(r.n[3], 1<<31-1))
					if it.x1 < 0 {
						it.s.div = 0
					}
				}
			}
		} else {
			s.leased(it, &reps[i], bad[i], now)
		}
		if bad[i] {
			it.e.failed = true
		}
		sh.mu.Unlock()
	}
	for _, e := range entries {
		e.sh.mu.Lock()
		if !e.failed {
			e.okAt, e.ver = now, e.readVer
			e.forgot, e.own, e.floor = 0, 0, 0 // a forgotten key's count is read back
		}
		e.retry = e.failed
		e.failed = false
		e.sh.mu.Unlock()
	}
	// Unused keysets this round emptied are visited no more.
	s.mu.Lock()
	s.prune()
	s.mu.Unlock()
	s.stats.rounds.Add(1)
	s.stats.items.Add(uint64(len(items)))
	if err != nil {
		s.stats.failed.Add(1)
		if circuit.Soft(err) && ctx.Err() == nil {
			// A connection stopped answering: a failover may have
			// black-holed every connection open then, idle ones too,
			// which the next rounds would otherwise meet one by one.
			s.bound.FlushSoon()
		}
	}
	return err
}

// unsent puts back what item it (of a call the round did not send) was
// to push and give back, for the next round: all of it, refunds too, as
// Redis never saw it.
func (s *Store) unsent(it *item) {
	if it.kind == 'w' {
		if it.s != nil && it.s.idx == it.idx {
			it.s.inflight -= it.push
			it.s.delta += it.push
		}
		return
	}
	b := &it.e.bs[it.ls[it.li].at]
	b.inflight -= it.push
	b.unconf += it.push
}

// leased applies a bucket item's reply (bad: its call failed) at the end
// of the round that began at now.
func (s *Store) leased(it *item, r *reply, bad bool, now int64) {
	l := &it.ls[it.li]
	start := it.idx * l.span
	b := &it.e.bs[l.at]
	b.inflight -= it.push
	b.frozen -= it.x1 // given back, or lost with the call: never given back twice
	if bad {
		b.unconf += it.push
		return
	}
	if it.x3 > 0 {
		// The former lease's leftover is given back by the next round;
		// the new lease is spent from now on.
		b.frozen += max(b.credit, 0)
		b.credit, b.exp, b.until, b.ver = r.n[2], 0, start+r.n[4], it.ver
		if b.credit > 0 {
			b.exp = now + s.life()
		}
	}
	if !it.e.gone {
		// A GCRA's TAT, in ns since the span's start, is rounded up: the
		// view errs on the strict side.
		s.reread(l, b, now, start+int64(math.Ceil(r.pre)), r.pre, start+r.n[1], r.n[3])
	}
}

// due reports whether a round must sync e: units to push in a window that
// still counts; a window no round has read yet, of a limit the node used
// up its share of without a claim (Limit/Nodes) in the previous window (a
// key hot on this node gets its claim before the window's first
// decisions); a bucket with units to push or give back, a lease idle or
// expired, or a demand its share or lease fell short of.
func (k *keyset) due(e *entry, ls []lim, now int64) bool {
	for i := range ls {
		l := &ls[i]
		if l.kind.bucket() {
			b := &e.bs[l.at]
			if b.unconf != 0 || b.frozen > 0 || b.short || b.used > 0 || b.credit > 0 && (b.asked == 0 || now >= b.exp) {
				return true
			}
			continue
		}
		first := max(spanIndex(now, l.window), e.newest[i])
		if l.kind == kindSliding {
			first--
		}
		ws := e.ws[l.at : l.at+2]
		for _, s := range ws {
			if s.idx >= first && s.delta != 0 {
				return true
			}
		}
		cur := max(spanIndex(now, l.window), e.newest[i])
		if at(ws, cur, false) == nil {
			if p := at(ws, cur-1, false); p != nil && p.own > 0 && p.own >= l.limit/int64(k.s.opts.Nodes) {
				return true
			}
		}
	}
	return false
}

// collect appends to items the limits of sh's entries (sh locked) that
// the round syncs, and to entries those it reads back; it returns the
// entries sh keeps listing (appended to keep), dropping those with
// nothing left to sync or decide on: every window ended, every bucket
// refilled, nothing to push or give back (evicted entries once their
// units are pushed). When the keyset is unused (no table holds it), every
// entry is evicted and kept only until its units are pushed.
func (k *keyset) collect(sh *shard, lims *limits, now int64, unused bool, keep []*entry, items *[]item, entries *[]*entry) []*entry {
	ls := lims.ls
	life := k.s.life()
	for _, e := range sh.list {
		e.sh = sh
		if now-e.okAt >= life {
			// The claims this node made at its last read have lapsed in
			// Redis, where the other nodes may claim what they held: a
			// caller that read the clock before their end and reaches the
			// shard after this round began (a stalled goroutine) decides
			// without them, as on a stale view.
			for j := range e.ws {
				e.ws[j].div = 0
			}
		}
		if unused && !e.gone {
			sh.drop(e)
			e.gone = true
		}
		read := !e.gone && (e.want || e.retry || e.confirm || k.due(e, ls, now))
		e.want, e.confirm = false, false
		n0 := len(*items)
		live := false
		for i := range ls {
			if ls[i].kind.bucket() {
				live = k.collectBucket(e, lims, i, now, read, items) || live
			} else {
				live = k.collectWindow(e, lims, i, now, read, items) || live
			}
		}
		if read {
			e.failed = false
			e.readVer = lims.ver
			*entries = append(*entries, e)
			for _, it := range (*items)[n0:] {
				// What the other nodes pushed in this round reaches this
				// node's view at the next one.
				e.confirm = e.confirm || it.push != 0 || it.kind != 'w' && (it.x1 > 0 || it.x3 > 0)
			}
		}
		if live && !unused || len(*items) > n0 {
			e.pos = len(keep)
			keep = append(keep, e)
			continue
		}
		if e.forgot > now && e.own > 0 && !unused {
			// An entry made for a forgotten key that returned, holding
			// nothing but its note (denied by it, or evicted since): the
			// shard notes the key again, or it would return as new.
			sh.forgot.add(e.h, e.forgot, e.own, forgotCap(k.per), now)
		}
		if e.gone {
			sh.limbo.drop(e)
		} else {
			sh.drop(e)
		}
	}
	if unused {
		sh.limbo = index{}
		sh.forgot = notes{}
	}
	return keep
}

// add appends the item it of e (named later: see name).
func (k *keyset) add(e *entry, ls []lim, it item, items *[]item) {
	it.e, it.ls, it.k = e, ls, k
	*items = append(*items, it)
}

// hashKey names one Redis hash of a round: a keyset's hash tag, limit and
// window or span.
type hashKey struct {
	k   *keyset
	tag string
	li  int
	idx int64
}

// name sets the Redis names of the round's items — each key's field (a
// digest, computed once per entry) and hashes (built once per round) —
// outside the shards' locks: only rounds, one at a time, read and write
// an entry's field and tag.
func name(items []item) {
	hashes := map[hashKey]string{}
	hash := func(it *item, idx int64) string {
		hk := hashKey{it.k, it.e.tag, it.li, idx}
		h, ok := hashes[hk]
		if !ok {
			if it.kind == 'w' {
				h = it.k.windowHash(it.e.tag, it.li, idx)
			} else {
				h = it.k.bucketHash(it.e.tag, it.li, it.ls[it.li].span, idx)
			}
			hashes[hk] = h
		}
		return h
	}
	for i := range items {
		it := &items[i]
		if it.e.field == "" {
			it.e.field, it.e.tag = it.k.field(it.e.key)
		}
		it.hash = hash(it, it.idx)
		if it.kind != 'w' {
			it.prev = hash(it, it.idx-1)
		}
	}
}

// slack is what a Redis hash outlives its last use by.
func (s *Store) slack() int64 {
	return int64(max(time.Second, 2*s.opts.SyncPeriod+s.opts.Timeout))
}

// collectWindow appends the items of e's window limit i: when read, its
// windows that count (the current one with the room its claim shares);
// else only those with units to push. It reports whether a window that
// counts holds anything.
func (k *keyset) collectWindow(e *entry, lims *limits, i int, now int64, read bool, items *[]item) (live bool) {
	ls := lims.ls
	l := &ls[i]
	ws := e.ws[l.at : l.at+2]
	cur := max(spanIndex(now, l.window), e.newest[i])
	first := cur
	if l.kind == kindSliding {
		first--
	}
	win := func(s *slot, idx int64) {
		end := (idx + 1) * l.window // the counter counts until then, and
		if l.kind == kindSliding {
			end += l.window // as the previous window for one more
		}
		it := item{li: i, kind: 'w', idx: idx, push: s.delta, ttl: max(1, (end-now+k.s.slack())/1e6), x1: -1}
		if idx == cur && read {
			var v view
			l.look(&v, ws, now, cur)
			it.x1, it.x2 = l.room(&v), k.s.guess(&v)
			if v.div > 0 && now-e.okAt < k.s.life() && e.forgot <= now {
				// The claim this node spends until the reply comes back,
				// and on if it is lost (see table.share): the new one may
				// not reserve less, or another node's next claim takes
				// what this one still spends.
				share := (l.room(&v) - v.currG - v.claims) / v.div
				if e.ver != lims.ver || k.s.opts.Nodes != 1 {
					share = min(share, v.claim)
				}
				it.x3 = max(0, share-v.unconf)
			}
		}
		if idx >= first {
			it.s = s
			s.inflight += s.delta
		}
		s.delta = 0
		k.add(e, ls, it, items)
	}
	for j := range ws {
		s := &ws[j]
		switch {
		case s.idx < first && s.delta != 0:
			win(s, s.idx) // a window that no longer counts: push its units only
		case s.idx >= first && (s.delta != 0 || s.global != 0):
			live = true
			if !read && s.delta != 0 {
				win(s, s.idx)
			}
		}
	}
	if read {
		for idx := first; idx <= cur; idx++ {
			win(at(ws, idx, true), idx)
		}
	}
	return live
}

// collectBucket appends, when read (or e is gone with something to push
// or give back), the item of e's bucket limit i: what it pushes and gives
// back (an idle or expired lease among it), and the lease it asks for: its
// part of what remains when a take since the last round was denied, else
// twice what the takes asked when they spent the lease, else none. It reports
// whether the bucket holds anything.
func (k *keyset) collectBucket(e *entry, lims *limits, i int, now int64, read bool, items *[]item) (live bool) {
	ls := lims.ls
	l := &ls[i]
	b := &e.bs[l.at]
	live = !l.recovered(b, now)
	if e.gone {
		// Evicted or reset: push what it admitted, give its lease back,
		// lease nothing.
		read = b.unconf != 0 || b.frozen > 0 || b.credit > 0
		b.short, b.used = false, 0
	}
	if !read {
		return live
	}
	j := spanIndex(now, l.span)
	it := item{li: i, kind: 't', idx: j, ttl: ((j+2)*l.span - now + k.s.slack()) / 1e6, x4: b.sharers, ver: lims.ver}
	if l.kind == kindGCRA {
		it.kind = 'g'
	}
	if it.x4 == 0 {
		it.x4 = int64(k.s.opts.Nodes)
	}
	switch {
	case b.short:
		it.x3 = 1 << 50 // its part of what remains
	case b.used > 0:
		it.x3 = max(2*b.asked, 1)
	}
	if b.credit > 0 && (it.x3 == 0 || now >= b.exp) {
		b.frozen += b.credit // an idle or expired lease: give it back
		b.credit, b.exp = 0, 0
	}
	if b.frozen > 0 {
		it.x1, it.x2 = b.frozen, max(b.until-j*l.span, -l.span)
	}
	it.push = b.unconf
	b.inflight += b.unconf
	b.unconf = 0
	b.asked, b.used, b.short = 0, 0, false
	k.add(e, ls, it, items)
	return live
}
