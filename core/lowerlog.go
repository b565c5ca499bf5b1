package core

import (
	"context"
	"math/bits"
	"slices"
	"sync/atomic"
)

// A refund of a take lowers the key's state by what it gives back. In the
// algorithms whose state is one span of time that drains (GCRA,
// LeakyBucket, TokenBucket, WarmUp, Hybrid's smooth mode), that moves down
// the spans of every take made after the refunded one: a refund of an
// earlier take, made after a take B, moves B's span down, so that B's own
// refund, bounded by where B's span ended when B was taken, would give
// back what has drained since (a client past its burst: with a burst of
// 100, take 50, take 50, refund the first, wait 49 s, take 99, refund the
// second, take 50 more).
//
// lowerLog remembers, per key hash, each refund while a take it may have
// moved can still give something back (the policy's longest hold, at most
// the refund window), and how far it may have moved the spans of the
// takes after its own (its bound: what its take still held of each
// limit's span, and no more than its cost's span), so that a refund first
// takes off its hold what the refunds made since its take may have moved
// it.
//
// "Since its take" compares positions: a take's (see Result.epoch) and a
// refund's, such that a refund whose position is below a take's lowered
// the state before the take was decided, and moved nothing of it. On the
// in-memory store they are the shard's own (see memTable.refundPos): exact.
// On the other stores each shard of the log counts its refunds (seq): a
// take reads the count before it is decided, and its position is the
// count plus one; a refund is numbered once the store has made it, so
// that one numbered at or below a take's count was made before the take
// was decided. A refund made while a take is decided may be counted
// though it moved nothing, which only gives back less.
//
// A shard's refunds are made one at a time, each recorded before the next
// reads the log, so that none made before is missed. What a log cannot know,
// it never gives: a take positioned before a refund the log has forgotten (a
// full shard forgets the older half it holds, a key at lowerKeyCap the
// oldest quarter of its own) gives nothing back from its span limits,
// and a refund whose store call failed is counted by every later refund while
// it is remembered. It knows the refunds of its own Limiter: another
// process's refunds of the same Redis key are not counted (see "Refunds" in
// the package documentation).
type lowerLog struct {
	perShard int
	// shards: on the in-memory store, one per shard of its table (the
	// keys of one shard share its positions), found as the table finds
	// them; on other stores lowerShards, by the key hash.
	shards      []lowerShard
	shift, mask uint64
}

const lowerShards = 64

type lowerShard struct {
	seq atomic.Uint64 // refunds made, on stores other than the in-memory one
	_   [56]byte      // takes read seq; refunds write the rest

	held atomic.Pointer[chan struct{}] // the shard's lock, made at its first refund: see lock
	keys map[uint64][]lowering         // per key hash, in the order recorded
	n    int                           // entries in keys
	// forgot is the highest position of a refund forgotten: a take at or
	// below it may have been moved by refunds the shard no longer knows.
	forgot uint64
	// floors holds, per key hash, the highest position of a refund of
	// the key forgotten to keep its list within lowerKeyCap: forgot for
	// that key alone (see lowerkey.go). Only keys in keys have one.
	floors map[uint64]uint64
	// byAt holds a record of each entry of keys, its instant and key
	// hash, soonest first, so that a full shard prunes only the keys of
	// entries older than the window. A record whose entry has gone since
	// (pruned with its key's, or forgotten) is stale: its key is pruned
	// for nothing when it comes first, and it is dropped when the heap is
	// rebuilt from keys.
	byAt    untilHeap[uint64]
	visited int // keys looked at to make room (a measure for tests)
	walked  int // entries moved and pruneKey looked at (a measure for tests)
}

// lowering is one refund: its position (see lowerLog), its take's, when
// it was made, the instant its take was decided at and, per limit, where
// the take's span ended then and how far the refund may have moved the
// spans of the takes after it (0 for limits that are not a span).
type lowering struct {
	pos   uint64
	tmark uint64 // its take's position
	at    int64
	taken int64
	until [MaxLimits]int64
	shift [MaxLimits]int64
}

// noHi stands for a take position bounded from above by nothing (see
// Limiter.markHi).
const noHi = ^uint64(0)

// failedPos is the position of a refund whose store call failed: counted
// by every refund while remembered, as the store may make it at any time.
const failedPos = ^uint64(0)

// newLowerLog returns the log of a limiter whose refund ledger holds
// capacity entries, on the in-memory table mem (nil for other stores).
func newLowerLog(capacity int, mem *memTable) *lowerLog {
	n := lowerShards
	lg := &lowerLog{mask: lowerShards - 1}
	if mem != nil {
		n = len(mem.shards)
		lg.shift, lg.mask = uint64(mem.shardShift&63), mem.shardMask
	}
	lg.perShard = max(1, capacity/n)
	lg.shards = make([]lowerShard, n)
	return lg
}

func (lg *lowerLog) shard(kh uint64) *lowerShard { return &lg.shards[kh>>lg.shift&lg.mask] }

// lock locks sh, or returns ctx's error once it is done first: the lock is
// held across a refund's store call (a network round trip, or a stalled
// one until its timeout), and a refund waiting behind it gives up with its
// own context rather than queue past its deadline.
func (sh *lowerShard) lock(ctx context.Context) error {
	held := sh.lockChan()
	select {
	case held <- struct{}{}:
		return nil
	default:
	}
	select {
	case held <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (sh *lowerShard) unlock() { <-*sh.held.Load() }

// lockChan returns the shard's lock, made by the first refund that needs
// it: a limiter that never refunds (most of them) allocates none. Made at
// once, the 64 made NewLimiter 3.5 times slower (13.8 µs and 76
// allocations, against ~4 µs and 12).
func (sh *lowerShard) lockChan() chan struct{} {
	if c := sh.held.Load(); c != nil {
		return *c
	}
	c := make(chan struct{}, 1)
	if sh.held.CompareAndSwap(nil, &c) {
		return c
	}
	return *sh.held.Load()
}

// moved returns how far the refunds recorded for the key of hash kh at or
// after position pos (the take's) may have moved the spans, per limit, of
// a take decided at taken whose spans ended at until, or false when some
// of those refunds may have been forgotten. hi bounds the take's position
// from above (see Limiter.markHi), or is noHi: a refund positioned below
// pos was made before the take, one at or above hi after it, and a take
// positioned above hi was decided after it; between pos and hi, either.
//
// A refund moves the spans of the takes after its own. Instants do not
// tell which those are (a clock may step back), nor do the spans' ends
// alone: without a lowering of the key's state between two takes, the
// later one's span ends no earlier, but a refund made between them (take
// X, take R, refund X, take T: T's span ends before R's did) breaks that.
// So a refund of a take R counts against the take T unless R was taken
// after T for certain: R positioned above T's hi; or R's span ended after
// T's, R was taken at T's instant or later, and no refund that may lie
// between R's take and T's (positioned at or above R's position and below
// T's hi) moved the limit, nor may have: none forgotten positioned at or
// above R's position. The forgotten refunds are those of the shard
// (forgot) and those of the key alone (see lowerShard.floor). The caller
// holds sh's lock.
func (sh *lowerShard) moved(kh, pos, hi uint64, taken int64, until *[MaxLimits]int64) (shift [MaxLimits]int64, ok bool) {
	forgot := sh.floor(kh)
	if pos <= forgot {
		return shift, false
	}
	list := sh.keys[kh]
	sh.walked += 2 * len(list) // it walks the list twice
	// Per limit, the two highest positions of the refunds that moved it
	// and may precede the take (indexes into list), for "a refund other
	// than R's between R's take and T's".
	var top [MaxLimits][2]int
	for i := range top {
		top[i] = [2]int{-1, -1}
	}
	for j := range list {
		e := &list[j]
		if e.pos == 0 || (hi != noHi && e.pos >= hi) {
			continue
		}
		for i, d := range e.shift {
			if d <= 0 {
				continue
			}
			switch t := &top[i]; {
			case t[0] < 0 || e.pos > list[t[0]].pos:
				t[1], t[0] = t[0], j
			case t[1] < 0 || e.pos > list[t[1]].pos:
				t[1] = j
			}
		}
	}
	for j := range list {
		e := &list[j]
		if e.pos < pos || e.pos == 0 || (hi != noHi && e.tmark > hi) {
			continue
		}
		for i, d := range e.shift {
			if d <= 0 {
				continue
			}
			// A forgotten refund positioned at or above R's take may lie
			// between the two takes: the log no longer tells.
			between := forgot >= e.tmark
			for _, k := range top[i] {
				if k >= 0 && k != j && list[k].pos >= e.tmark {
					between = true
				}
			}
			if e.taken < taken || e.until[i] <= until[i] || between {
				shift[i] = min(shift[i]+d, 4*maxSpan)
			}
		}
	}
	return shift, true
}

// record remembers refund e of the key of hash kh, dropping the key's
// entries older than window, the oldest quarter of those that did not fail
// when it holds lowerKeyCap of them (see forgetKeyOlder), and, when the shard is full, every
// entry older than window, or the older half of them (see forgetOlder)
// when that is not enough. The caller holds sh's lock.
func (sh *lowerShard) record(kh uint64, e lowering, window int64, perShard int) {
	if sh.keys == nil {
		sh.keys = make(map[uint64][]lowering)
	}
	if sh.n >= perShard {
		// Only the keys of the entries older than window are pruned: a
		// prune of every key, once for each instant one entry aged, cost
		// refunds arriving about as fast as their entries age a look at
		// every key of the shard at each refund, under its lock.
		// A key is pruned once for all its records that come due
		// (pruneKey walks its whole list): one per record let a key
		// whose own refunds pruned it, leaving up to a heap's worth of
		// stale records, be walked once for each by the next refund of
		// any key of the shard.
		var buf [16]uint64 // most refunds find few keys due: no allocation
		due := buf[:0]
		for sh.byAt.due(e.at - window) {
			sh.visited++
			due = append(due, sh.byAt.pop().key)
		}
		slices.Sort(due)
		for _, k := range slices.Compact(due) {
			sh.pruneKey(k, e.at, window)
		}
		if sh.n >= perShard {
			sh.forgetOlder()
		}
	}
	if failed := sh.pruneKey(kh, e.at, window); len(sh.keys[kh])-failed >= lowerKeyCap {
		sh.forgetKeyOlder(kh)
	}
	sh.keys[kh] = append(sh.keys[kh], e)
	sh.n++
	sh.byAt.push(e.at, kh)
	if len(sh.byAt) > 2*max(perShard, sh.n) {
		sh.rebuild()
	}
}

// rebuild makes byAt anew from keys, without its stale records (of
// entries gone since): at most once every perShard refunds, so that its
// cost is spread over them.
func (sh *lowerShard) rebuild() {
	sh.byAt = sh.byAt[:0]
	for kh, list := range sh.keys {
		for _, e := range list {
			sh.byAt.push(e.at, kh)
		}
	}
}

// forgetOlder forgets the older half of the shard's refunds (by position,
// whatever their keys), raising the floor to the latest of them: the takes
// positioned at or below it give nothing back from their spans, as the
// refunds they would have to count may be among those forgotten. Forgetting
// the lowest positions refuses the fewest takes: only those made before
// about half the shard's bound of refunds (forgetting every refund refused
// the refunds of every take made before the latest, whatever its key, at
// each overflow). A failed refund's position is unknown, and sorts last.
// The caller holds sh's lock.
func (sh *lowerShard) forgetOlder() {
	pos := make([]uint64, 0, sh.n)
	for _, list := range sh.keys {
		for _, e := range list {
			pos = append(pos, e.pos)
		}
	}
	if len(pos) == 0 {
		return
	}
	slices.Sort(pos)
	cut := pos[(len(pos)-1)/2]
	for kh, list := range sh.keys {
		kept := list[:0]
		for _, e := range list {
			if e.pos <= cut {
				sh.forget(e)
			} else {
				kept = append(kept, e)
			}
		}
		sh.n -= len(list) - len(kept)
		if len(kept) == 0 {
			sh.dropKey(kh)
			continue
		}
		clear(list[len(kept):])
		sh.keys[kh] = kept
	}
}

// pruneKey drops the entries of the key of hash kh made at now−window or
// before: no take they may have moved may still be refunded. It returns
// how many of the entries kept are failed refunds (see forgetKeyOlder).
func (sh *lowerShard) pruneKey(kh uint64, now, window int64) (failed int) {
	list := sh.keys[kh]
	sh.walked += len(list)
	kept := list[:0]
	for _, e := range list {
		if e.at > now-window {
			kept = append(kept, e)
			if e.pos == failedPos {
				failed++
			}
		} else {
			sh.forget(e)
		}
	}
	sh.n -= len(list) - len(kept)
	if len(kept) == 0 {
		sh.dropKey(kh)
		return 0
	}
	clear(list[len(kept):])
	sh.keys[kh] = kept
	return failed
}

// forget raises the floor past e, a refund forgotten: the takes positioned
// at or below it give nothing back (see moved), the refunds they would
// have to count being unknown. A failed refund's position is unknown:
// every take numbered so far is at or below it (on the in-memory store no
// refund fails).
func (sh *lowerShard) forget(e lowering) { sh.forgot = max(sh.forgot, sh.forgotPos(e)) }

// forgotPos is the floor forgetting e raises (see forget): its position,
// every take numbered so far for a failed refund, 0 for one that changed
// nothing.
func (sh *lowerShard) forgotPos(e lowering) uint64 {
	switch e.pos {
	case 0:
		return 0
	case failedPos:
		return sh.seq.Load()
	default:
		return e.pos
	}
}

// spanner is a stepper whose state is a span of time that drains, which a
// refund of an earlier take moves down (see lowerLog), rather than counts
// of windows, which a refund lowers only where its own take counted.
// span(cost) bounds from above how much of it a take of cost occupies: the
// most its refund moves the takes after it.
//
// holdMax bounds from above the hold of any take (how long after it its
// refund may give something back): a refund of the key older than that
// can move no take still held, and the log forgets it.
type spanner interface {
	span(cost int64) int64
	holdMax() int64
}

func (g *gcraStep) span(cost int64) int64   { return min(cost, g.burst) * g.interval }
func (h *hybridStep) span(cost int64) int64 { return min(cost, h.limit) * h.interval }

func (g *gcraStep) holdMax() int64   { return g.tolerance }
func (h *hybridStep) holdMax() int64 { return h.window + h.tolerance }
func (s *tokenStep) holdMax() int64  { return s.fill }
func (w *warmStep) holdMax() int64   { return 4 * maxSpan }

// span is the time to refill cost tokens, rounded up (fill is at least
// the time to refill burst tokens).
func (s *tokenStep) span(cost int64) int64 {
	hi, lo := bits.Mul64(uint64(min(cost, s.burst)), uint64(s.fill))
	q, r := bits.Div64(hi, lo, uint64(s.burst))
	if r != 0 {
		q++
	}
	return int64(q) + 1
}

// span is unbounded for WarmUp, whose permits cost more time the colder it
// is: its refund is bounded by what its take still holds alone.
func (w *warmStep) span(int64) int64 { return 4 * maxSpan }

// spanned returns s as a spanner, or nil.
func spanned(s stepper) spanner {
	if r, ok := s.(*xorRecode); ok {
		s = r.stepper
	}
	sp, _ := s.(spanner)
	return sp
}
