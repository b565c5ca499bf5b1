package core

import (
	"math"
	"math/rand/v2"
	"sync/atomic"
)

// This file holds the word mode of memTable: a policy whose whole state is
// one int64 word (a single GCRA or LeakyBucket limit) decides a take of an
// existing key without the shard's lock, by one compare-and-swap on the
// key's state word. The other algorithms keep the lock: their state is two
// words or more (TokenBucket's float64 tokens and last instant, which its
// exact x/time/rate arithmetic needs both of; the window counters with
// their start; the logs and rings), which no single compare-and-swap
// covers, and a denial of SlidingLog or Backoff writes state too.
//
// What makes it exact, and memory safe:
//
//  1. A slot is claimed once. Its hash word goes from 0 (empty) to the
//     key's hash (insert) and, when the entry is dropped, to 1 (tombstone),
//     never back: a slot never holds another key. An entry is never moved
//     within an array either; a rebuild copies the entries into a new
//     array, and the old one is never written again except to freeze it
//     (below). Readers still holding it keep it alive; the GC frees it
//     after the last.
//  2. A state word holds the key's state or frozen (math.MinInt64, which
//     no state reaches: instants are in [0, maxInstant], see memTable.Do).
//     It is frozen while its slot is empty, from the insert that claims it
//     until that insert writes the first state, and for good once the entry
//     is dropped (a compare-and-swap from the state last seen to frozen,
//     then the tombstone) or copied away by a rebuild (an atomic swap with
//     frozen, whose result is what is copied).
//  3. Every write to a state word is atomic: a take's compare-and-swap, and
//     under the lock a refund's compare-and-swap from the state it viewed,
//     a drop's compare-and-swap to frozen, a rebuild's swap, an insert's
//     store of the first state. All freezing completes under the lock
//     (tombstone written, or the new array published) before the lock is
//     released: under the lock, a live slot of the current array is never
//     frozen.
//
// A lock-free take loads the shard's array, finds the key's slot (probes pass
// over tombstones, and no slot on a probe run is ever emptied, so a key
// present is found), loads the state v, and, unless v is frozen, decides on
// v: a denial changes nothing and takes effect at the load; an admission
// compare-and-swaps v to the new state, and loops on failure. By 1 the word
// is the key's own, so the swap can never update another key; by 3 it fails
// if anything else wrote the word since v was loaded: no update is lost, not
// even to a rebuild (the swap then meets frozen and fails, where a plain
// store would have landed in the discarded array). Should the same value come
// back (a refund restoring it), deciding on it is deciding on the state as it
// then is. Each decision is so linearised at its load or its swap, on the
// state as it is at that point: exactly as the locked store would have
// decided in that order. A take that meets frozen decides under the lock
// instead, after the change holding it has finished, on the current array.
//
// Sweeps and evictions drop an entry only by the compare-and-swap of 2: a
// recovered state is dropped only as it was seen recovered (a take that
// revived it meanwhile makes the swap fail and the entry is looked at
// again), and an evicted entry is weighed as it is forgotten.
//
// Names and epochs. The shard's epoch counts, under the lock, every change
// that lowers, drops or moves a state: a refund, a drop, a rebuild. Each
// counts after it has seen the state it changes and before its write takes
// effect (a refund or a drop: view, count, compare-and-swap; a rebuild:
// swaps, count, publication). An admitted take reads the epoch e before it
// loads the state and again after its swap, and records e+1 in its Result.
//
// A refund must tell the decision from every other of its limiter (the
// refund ledger names it by key hash, id and epoch), and whether it was
// made before its key's eviction (evictLog). The id of a take that read
// the same epoch twice is the state it left, TAT': no other take of the
// key that recorded the same epoch left the same TAT'. Between two takes
// of the key, either nothing lowered or dropped its state, and then the
// later TAT' is the greater (each take adds at least one interval), or
// some change did, and it was counted after the first take's first read
// and before the second take's second read. (It saw the state after the
// first take's swap, so it counted after that; its write preceded the
// second take's swap, so it counted before that.) Then either it counted
// between the takes, and their epochs differ, or it counted between one
// take's two reads, and that take read two epochs. A take that read two
// epochs takes a random id instead, marked by its top bit, which no TAT'
// has: rare (a change of the shard must land while it decides), and the
// one case named by chance (two such ids collide with a chance of 2^-63).
//
// An eviction's drop counts the epoch to m, and the key is marked m. A
// take whose swap landed in the evicted entry preceded the drop's view
// (which saw the take's state, or the drop's swap would have failed), and
// so the drop's count: the take read at most m−1 and recorded at most m,
// and its refund gives nothing. A take of the key's next entry records
// more than m unless it read the epoch before the count and found the new
// entry only after the eviction: taken for an earlier one, its refund
// gives nothing either, which only denies more. Resets mark their key the
// same way.

// Positions. The refund log (lowerlog.go) orders a take among the
// refunds of its key by the epoch it read, e: a refund whose count is at
// most e was made before the take was decided, one counted after it was
// made after the take's swap, on a state holding the take. An admitted
// take checks the epoch again before its swap and decides again when a
// change was counted meanwhile, so that no change counted after e has
// its swap land before the take's: a refund counted after e that viewed
// the state before the take's swap fails its own swap (the take wrote the
// word) and views it again, after; one whose swap landed between the
// take's load and swap makes the take's swap fail. So a refund's final
// count is at most e, or it lowered a state holding the take.

// frozen is the value of a state word that no take may change (2 above).
const frozen = math.MinInt64

// wordStep is a stepper whose state is one word and whose denials change
// nothing: the steppers the word mode accepts.
type wordStep interface {
	stepper
	// next decides taking cost at now from the state tat: the outcome and,
	// when it is allowed, the state after the take.
	next(tat, now, cost int64) (outcome, int64)
}

// wordStepOf returns the word-mode stepper of p and the GCRA meter it
// decides by (its forgetCost), or nils when p is not decided in the word
// mode. Only the steppers named here qualify; a stepper embedding gcraStep
// does not by that alone.
func wordStepOf(p *Policy) (wordStep, *gcraStep) {
	if len(p.limits) != 1 || p.words != 1 {
		return nil, nil
	}
	switch s := p.limits[0].step.(type) {
	case *gcraStep:
		return s, s
	case *leakyStep:
		return s, &s.gcraStep
	}
	return nil, nil
}

// setWord sets t's word-mode steppers for p (none when p is not decided
// in the word mode).
func (t *memTable) setWord(p *Policy) {
	t.word, t.meter = wordStepOf(p)
	t.gcra, _ = t.word.(*gcraStep)
}

// wordIdleAt is a word stepper's idleAt of the state v: the state is the
// TAT, from which the key is idle (TestWordIdleAtIsTheState).
func wordIdleAt(v int64) int64 { return v }

// takeWord decides taking cost at now for the key of hash h, in shard s,
// whose state word is w, into res. It reports false, having changed
// nothing, when the word is frozen: the caller decides under the lock.
// Without the lock, it is the word mode's hot path; under it, it never
// fails.
func (t *memTable) takeWord(s *memShard, h uint64, w *int64, now, cost int64, res *Result) bool {
	ep := s.epoch.Load() // before the swap: see "Names and epochs" above
	v := atomic.LoadInt64(w)
	for {
		if v == frozen {
			return false
		}
		var o outcome
		var next int64
		if g := t.gcra; g != nil {
			// gcraStep.next, inlined: an outcome returned through the
			// stack costs a store-forwarding stall.
			if diff, ok := g.admit(v, now, cost); ok {
				o, next = g.admitted(diff), now+diff
			} else {
				o = g.refuse(v, now, g.retry(diff, cost))
			}
		} else {
			o, next = t.word.next(v, now, cost)
		}
		if o.allowed {
			if e := s.epoch.Load(); e != ep {
				// A change was counted while deciding: decide again, on
				// the state it leaves, so that the take's position is
				// exact (see "Positions" above).
				ep = e
				v = atomic.LoadInt64(w)
				continue
			}
			if !atomic.CompareAndSwapInt64(w, v, next) {
				// Another decision wrote the word: decide again. The
				// word is contended: read it by an add of 0, which takes
				// its cache line for writing at once (a load would share
				// it, and the swap then ask for it again).
				v = atomic.AddInt64(w, 0)
				continue
			}
		}
		res.at, res.Cost, res.policy, res.taken = now, cost, t.policy, o.allowed
		res.id, res.kh, res.epoch = 0, 0, 0
		if o.allowed {
			res.id, res.kh, res.epoch = uint64(next), h, ep+1
			if s.epoch.Load() != ep {
				// A change counted while deciding: the state does not
				// name the decision (see above), a random id does.
				res.id = rand.Uint64() | 1<<63
			}
		}
		res.per[0] = o
		res.set(0, &o)
		return true
	}
}
