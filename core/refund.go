package core

import (
	"fmt"
	"slices"
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
}

// reset records that the key of hash kh was reset at now; entries older
// than now−window are dropped when the log is full.
func (r *resetLog) reset(kh uint64, now, window int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.at == nil {
		r.at = make(map[uint64]int64)
	}
	if _, ok := r.at[kh]; !ok && len(r.at) >= maxResets {
		for k, at := range r.at {
			if now-at >= window {
				delete(r.at, k)
			}
		}
		if len(r.at) >= maxResets {
			r.forgetOlder()
		}
	}
	r.at[kh] = max(r.at[kh], now)
}

// forgetOlder forgets the older half of the keys (by instant), raising
// the floor to the latest of their instants: a decision one of them
// forgot is still refused, by the floor. r.mu is held.
func (r *resetLog) forgetOlder() {
	if len(r.at) == 0 {
		return
	}
	ats := make([]int64, 0, len(r.at))
	for _, at := range r.at {
		ats = append(ats, at)
	}
	slices.Sort(ats)
	cut := ats[(len(ats)-1)/2]
	for k, at := range r.at {
		if at <= cut {
			delete(r.at, k)
		}
	}
	r.floor = max(r.floor, cut)
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
