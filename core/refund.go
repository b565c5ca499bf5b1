package core

import (
	"fmt"
	"sync"
	"time"
)

// DefaultRefundWindow is how long after a decision a [Limiter] accepts its
// refund, unless [WithRefundLedger] says otherwise.
const DefaultRefundWindow = time.Minute

// DefaultRefundLedger is how many spent refunds a [Limiter] remembers at
// most, unless [WithRefundLedger] says otherwise.
const DefaultRefundLedger = 1 << 20

const ledgerShards = 16

// refundLedger remembers the decisions already refunded, each until it
// can no longer be refunded (its refund window or its hold has passed,
// whichever is first), so that no decision is given back twice, whatever
// copies of its Result are refunded. It holds at most capacity entries: a
// refund that finds it full is refused (the cost stays taken).
type refundLedger struct {
	perShard int
	shards   [ledgerShards]ledgerShard
}

type ledgerShard struct {
	mu      sync.Mutex
	spent   map[decisionName]int64  // decision → instant from which its entry may go
	byUntil untilHeap[decisionName] // the entries of spent, soonest to go first
	purged  int64                   // entries up to this instant may have gone
	visited int                     // entries looked at to make room (a measure for tests)
	_       [64 - 56]byte
}

// decisionName tells a consuming decision from every other of its limiter:
// the key's hash, the decision's id and its store's epoch (see Result.id).
type decisionName struct{ kh, id, epoch uint64 }

func newRefundLedger(capacity int) *refundLedger {
	return &refundLedger{perShard: max(1, capacity/ledgerShards)}
}

// spend records the refund of decision id, whose entry may go from until
// on, at now. It fails with ErrRefunded when id was refunded before, and
// with ErrRefundLedgerFull when the shard is full of entries that may not
// go yet.
func (lg *refundLedger) spend(id decisionName, until, now int64) error {
	s := &lg.shards[(id.id^id.kh)%ledgerShards]
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.spent == nil {
		s.spent = make(map[decisionName]int64)
	}
	if _, ok := s.spent[id]; ok {
		return fmt.Errorf("core: refund: %w", ErrRefunded)
	}
	if until <= s.purged {
		// Its entry may have gone (a clock that stepped back): refuse.
		return fmt.Errorf("core: refund: %w", ErrRefundExpired)
	}
	if len(s.spent) >= lg.perShard && s.byUntil.due(now) {
		// Only the entries that may go are looked at: the shard's
		// whole scan, once for each instant one went, made each refund
		// of a client refunding about as fast as its entries go cost
		// a look at every entry of the shard, under its lock.
		for s.byUntil.due(now) {
			s.visited++
			delete(s.spent, s.byUntil.pop().key)
		}
		s.purged = max(s.purged, now)
	}
	if len(s.spent) >= lg.perShard {
		return fmt.Errorf("core: refund: %d refunds already within their window: %w", len(s.spent)*ledgerShards, ErrRefundLedgerFull)
	}
	s.byUntil.push(until, id)
	s.spent[id] = until
	return nil
}

// maxResets bounds the keys whose latest Reset a Limiter remembers.
const maxResets = 4096

// resetLog remembers, per key hash, the latest instant the key was reset
// at, while a decision taken before it could still be refunded (a refund
// window): such a refund finds nothing of its take in the state and must
// give nothing back. When more than maxResets keys were reset within a
// window, the log forgets the older half of them and remembers the latest
// instant among those (floor): every decision taken up to it then gives
// nothing back, which only denies more, and only for decisions older than
// about maxResets/2 resets (forgetting them all refused the refund of
// every decision taken before the latest reset, whatever its key).
type resetLog struct {
	mu    sync.Mutex
	at    map[uint64]int64
	floor int64
	// byAt holds the keys of at by the instant of their reset, so that a
	// full log forgets the keys whose window has passed, or its older
	// half, without looking at the others (a scan of every key, once for
	// each instant a window passed, cost a client resetting keys about
	// as fast as their windows pass a look at every key at each reset,
	// under the lock every refund waits for). An entry whose key was
	// reset again or forgotten since is stale: skipped when it comes
	// first, and dropped when the heap is rebuilt from at.
	byAt    untilHeap[uint64]
	limit   int // keys remembered at most: maxResets when 0 (tests set less)
	visited int // entries looked at to make room (a measure for tests)
}

// reset records that the key of hash kh was reset at now; entries older
// than now−window are dropped when the log is full.
func (r *resetLog) reset(kh uint64, now, window int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.at == nil {
		r.at = make(map[uint64]int64)
	}
	limit := r.limit
	if limit == 0 {
		limit = maxResets
	}
	t, ok := r.at[kh]
	if !ok && len(r.at) >= limit {
		// A reset at or before now−window is past its window (now−at ≥
		// window; now ≥ 0 and window > 0, see Reset and NewLimiter).
		for r.byAt.due(now - window) {
			r.drop(r.byAt.pop())
		}
		if len(r.at) >= limit {
			r.forgetOlder()
		}
	}
	if !ok || now > t {
		r.at[kh] = now
		r.byAt.push(now, kh)
		if len(r.byAt) > 2*max(limit, len(r.at)) {
			r.rebuild()
		}
	}
}

// drop forgets e's key if e is its latest reset, and reports whether it
// did; a stale e (its key reset again, or forgotten) is only let go.
func (r *resetLog) drop(e untilEntry[uint64]) bool {
	r.visited++
	if at, ok := r.at[e.key]; ok && at == e.until {
		delete(r.at, e.key)
		return true
	}
	return false
}

// forgetOlder forgets the older half of the keys (by instant), and every
// other key reset at the latest of their instants, raising the floor to
// it: a decision one of them forgot is still refused, by the floor. r.mu
// is held.
func (r *resetLog) forgetOlder() {
	half := (len(r.at) + 1) / 2
	for forgot := 0; forgot < half && len(r.byAt) > 0; {
		e := r.byAt.pop()
		if r.drop(e) {
			forgot++
			r.floor = max(r.floor, e.until)
		}
	}
	for r.byAt.due(r.floor) {
		r.drop(r.byAt.pop())
	}
}

// rebuild makes byAt anew from at, without its stale entries: at most
// once every limit resets, so that its cost is spread over them.
func (r *resetLog) rebuild() {
	r.byAt = r.byAt[:0]
	for k, at := range r.at {
		r.byAt.push(at, k)
	}
}

// forgot reports whether a decision taken at for the key of hash kh was
// made before a reset of that key.
func (r *resetLog) forgot(kh uint64, at int64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if at <= r.floor {
		return true
	}
	t, ok := r.at[kh]
	return ok && at <= t
}
