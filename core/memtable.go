package core

import (
	"context"
	"fmt"
	"hash/maphash"
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/floodgate-go/floodgate/core/store"
)

// memTable is one policy's state in a MemoryStore: shards of linear-probing
// hash tables whose slots are stride int64 words, the key's hash followed by
// the policy's state. A hash word of 0 marks an empty slot, 1 a tombstone
// (see memword.go); a key's hash is never either.
//
// A table works in one of two modes, fixed at Bind. In the locked mode
// every access to a shard's slots holds the shard's lock, and a removed
// entry is deleted by shifting the later entries of its probe run back. In
// the word mode (word non-nil: a policy whose state is one word, GCRA or
// LeakyBucket), a take of an existing key reads and updates its state
// without the lock, by compare-and-swap; the rules that keep that exact are
// in memword.go.
type memTable struct {
	policy    *Policy
	base      *Policy // the policy first bound: the state's encoding (see recode.go)
	seed      maphash.Seed
	shards    []memShard
	shardBits uint
	// shardShift and shardMask take a hash's top shardBits bits (a shift
	// below 64 that the compiler needs no guard for, then a mask, which
	// is 0 when there is one shard).
	shardShift uint
	shardMask  uint64
	perShard   int
	evict      bool
	stride     int
	lineMask   int       // see home
	zero       []int64   // the state of a key never seen; never written
	word       wordStep  // non-nil in the word mode
	gcra       *gcraStep // word when it is a plain GCRA: takeWord's case without a type switch
	meter      *gcraStep // the word mode's meter, for evictions
}

// memSlots is a shard's slot array: cap slots of stride words. A shard
// replaces its array (rebuild) rather than resizing it, so that a lock-free
// reader holding the old one never sees a slot of it reused (memword.go).
type memSlots struct {
	cap   int
	slots []int64
}

type memShard struct {
	// arr is the shard's slot array (nil until the first insert): written
	// under mu, read without it by the word mode's decisions.
	arr atomic.Pointer[memSlots]
	// epoch counts the changes that lower, drop or move an entry's state
	// (refunds, drops, rebuilds), each made under mu. A take reads it
	// before and after deciding: see memword.go for how that names the
	// decision and tells whether it was made before its key's eviction.
	epoch atomic.Uint64
	// (arr and epoch share a cache line that only those changes write;
	// the lock's line is written by every locked operation.)
	_ [cacheLine - 16]byte

	mu    sync.Mutex
	seq   uint64 // the locked mode's decision ids
	n     int    // live entries
	tombs int    // tombstones (word mode)
	// nextIdle bounds from below when the next live entry recovers: set by
	// every sweep and rebuild, lowered by every insert. (A refund can make
	// an entry recover earlier; a full shard then sweeps a little late,
	// refusing more, never admitting more.)
	nextIdle int64
	hand     int // the next slot the incremental sweep of a full shard examines
	// evicted remembers the keys evicted before they recovered (by hash),
	// so that a refund of a take made before its key's eviction gives
	// nothing back to the entry a later request made afresh (see
	// evictLog).
	evicted evictLog
	// scratch holds, in the word mode, a copy of one entry's state for the
	// steppers run under mu (view).
	scratch [1]int64
	// (The locked fields take 104 bytes: pad them to two lines, so that
	// the next shard's arr and epoch start a line of their own.)
	_ [2*cacheLine - 104]byte
}

const cacheLine = 64

// Load factors: a shard is rebuilt when an insert would pass 4/5 full
// (counting tombstones), and grows by a fifth when the rebuild would leave
// it more than 5/6 of that: once warm it is between 2/3 and 4/5 full, 20
// to 24 bytes per key of a one-word policy.
func maxLoad(c int) int { return c * 4 / 5 }

func growAt(c int) int { return maxLoad(c) * 5 / 6 }

func grow(c int) int { return max(8, c+max(1, c/5)) }

// evictScan is how many slots from a new key's home slot a full shard
// examines for an entry to forget (EvictCheapest): about 50 entries at the
// usual load, a bounded cost per insert.
const evictScan = 64

// sweepStep is how many slots the incremental sweep examines per insert
// into a full shard, from the shard's hand onwards, dropping the recovered
// entries: over cap/sweepStep such inserts it visits every slot.
const sweepStep = 8

const maxInt64 = int64(1<<63 - 1)

// The hash words of slots that hold no key.
const (
	emptyHash = 0
	tombHash  = 1
)

func liveHash(h uint64) bool { return h > tombHash }

// Do applies req; see [store.Table]. It refuses, as a [Limiter] does, an
// instant before 1970 or after maxInstant.
func (t *memTable) Do(_ context.Context, req store.Request) (store.Decision, error) {
	if req.Now < 0 || req.Now > maxInstant {
		return store.Decision{}, fmt.Errorf("core: now %d ns: %w", req.Now, ErrClock)
	}
	var res Result
	t.do(&req, 0, &res)
	return res.decision(), nil
}

// hash returns the hash of key in t's slots: never an empty slot's or a
// tombstone's hash word.
func (t *memTable) hash(key string) uint64 { return liveOf(maphash.String(t.seed, key)) }

// hashBytes is hash of string(key), without the string: maphash hashes a
// string and a byte slice of the same bytes alike.
func (t *memTable) hashBytes(key []byte) uint64 { return liveOf(maphash.Bytes(t.seed, key)) }

// liveOf returns h moved off the hash words of empty slots and tombstones.
func liveOf(h uint64) uint64 {
	if !liveHash(h) {
		h += 2
	}
	return h
}

// home returns the preferred slot of hash h in a shard of c slots. The top
// shardBits bits chose the shard, so they are shifted out first. The slot
// is the first of its cache line when whole slots fill a line (lineMask):
// the keys of a line probe it from its start, so that a key is found in
// the line it hashes to unless that line has overflowed, one line read
// per decision where a probe run starting anywhere would cross into the
// next line about a third of the time (at 1M keys, each line read is a
// cache miss).
func (t *memTable) home(h uint64, c int) int {
	hi, _ := bits.Mul64(h<<(t.shardBits&63), uint64(c))
	return int(hi) &^ t.lineMask
}

// lineMaskOf returns the mask that rounds a slot index down to the first
// slot of its cache line, for slots of stride words: a line holds
// cacheLine/8/stride whole slots when the stride divides a line's words,
// and the slot arrays of large shards start at a line (the runtime aligns
// large allocations to pages). Other strides get 0: slots straddle lines.
func lineMaskOf(stride int) int {
	const words = cacheLine / 8
	if words%stride != 0 {
		return 0
	}
	return words/stride - 1
}

// find returns the offset of h's slot in a, or of the empty slot where it
// would go. Tombstones are passed over. It reads the hash words atomically,
// so that the word mode may call it without the lock.
func (t *memTable) find(a *memSlots, h uint64) (int, bool) {
	if a == nil {
		return 0, false
	}
	i := t.home(h, a.cap)
	for {
		off := i * t.stride
		switch uint64(atomic.LoadInt64(&a.slots[off])) {
		case h:
			return off, true
		case emptyHash:
			return off, false
		}
		if i++; i == a.cap {
			i = 0
		}
	}
}

// change counts a change that lowers, drops or moves an entry's state;
// s.mu is held, and for a word its view precedes this and its write
// follows.
func (s *memShard) change() { s.epoch.Add(1) }

// shard returns the shard of hash h.
func (t *memTable) shard(h uint64) *memShard {
	return &t.shards[h>>(t.shardShift&63)&t.shardMask]
}

// lockedID returns a new decision id of the locked mode, unique within the
// shard: a count kept under s.mu.
func (s *memShard) lockedID() uint64 {
	s.seq++
	return s.seq
}

// take decides taking cost at now (validated) for the key of hash h (see
// hash and hashBytes) into res: do's store.OpTake without a Request on the
// word mode's lock-free path.
func (t *memTable) take(h uint64, now, cost int64, res *Result) {
	if t.word != nil {
		s := t.shard(h)
		if a := s.arr.Load(); a != nil {
			if off, found := t.find(a, h); found && t.takeWord(s, h, &a.slots[off+1], now, cost, res) {
				return
			}
		}
	}
	t.doHash(&store.Request{Op: store.OpTake, Now: now, Cost: cost}, h, 0, res)
}

// do applies req into res. epoch is, for store.OpRefund, the shard's eviction
// epoch the refunded take read (Result.epoch): whether the take was made
// before its key was evicted.
func (t *memTable) do(req *store.Request, epoch uint64, res *Result) {
	t.doHash(req, t.hash(req.Key), epoch, res)
}

// doHash is do for the key of hash h: req.Key is not read.
func (t *memTable) doHash(req *store.Request, h uint64, epoch uint64, res *Result) {
	s := t.shard(h)
	p := t.policy
	s.mu.Lock()
	a := s.arr.Load()
	off, found := t.find(a, h)
	if found && req.Op == store.OpTake && t.word == nil && len(p.limits) == 1 {
		// The locked mode's hot path: only the step runs under the lock;
		// the result is filled after it is released.
		st := a.slots[off+1 : off+t.stride]
		step := p.limits[0].step
		o := step.take(st, req.Now, req.Cost, true)
		id, kh, ep := uint64(0), uint64(0), uint64(0)
		if o.allowed {
			id, kh, ep = s.lockedID(), h, s.epoch.Load()+1
		} else if o.retryAfter != int64(Never) {
			if d, ok := step.denied(st, req.Now, req.Cost, true); ok {
				o = d
			}
		}
		s.mu.Unlock()
		res.at, res.Cost, res.policy, res.taken = req.Now, req.Cost, p, o.allowed
		res.id, res.kh, res.epoch = id, kh, ep
		res.per[0] = o
		res.set(0, &o)
		return
	}
	res.id, res.kh, res.epoch = 0, 0, 0
	switch {
	case req.Op == store.OpReset:
		if found {
			t.forget(s, a, off, req.Now)
		}
		*res = Result{}
	case found && req.Op == store.OpTake && t.word != nil:
		// A lock-free take found the slot frozen: under the lock no live
		// slot is, so this one decides.
		t.takeWord(s, h, &a.slots[off+1], req.Now, req.Cost, res)
	case found && req.Op == store.OpTake:
		p.take(a.slots[off+1:off+t.stride], req.Now, req.Cost, true, res)
		if res.taken {
			res.id, res.kh, res.epoch = s.lockedID(), h, s.epoch.Load()+1
		}
	case found && req.Op == store.OpRefund:
		for {
			st, v := t.view(s, a, off)
			if !s.evicted.before(h, epoch) {
				p.refund(st, req.Now, req.Taken, req.Cost, &req.Holds)
			}
			p.take(st, req.Now, 1, false, res)
			if t.publish(s, a, off, v, st) {
				res.id = t.refundPos(s, v, st)
				break
			}
			// A lock-free take moved the state on meanwhile: again, on it.
		}
	case found: // store.OpPeek
		st, _ := t.view(s, a, off)
		p.take(st, req.Now, req.Cost, false, res)
	case req.Op == store.OpTake:
		// A new key: decide on the zero state first, so that a denial
		// (a cost beyond any quota) takes no slot.
		p.take(t.zero, req.Now, req.Cost, false, res)
		if !res.Allowed {
			break
		}
		a, off, ok := t.insert(s, h, req.Now)
		if !ok {
			t.refuse(s, req.Now, res)
			break
		}
		st := a.slots[off+1 : off+t.stride]
		if t.word != nil {
			s.scratch[0] = 0
			st = s.scratch[:]
		}
		p.take(st, req.Now, req.Cost, true, res)
		if t.word != nil {
			// Publishes the entry: until now its state was frozen, and a
			// lock-free take finding it waited for the lock.
			atomic.StoreInt64(&a.slots[off+1], st[0])
		}
		s.nextIdle = min(s.nextIdle, p.idleAt(st))
		if res.taken {
			res.id, res.kh, res.epoch = s.lockedID(), h, s.epoch.Load()+1
			if t.word != nil {
				res.id = uint64(st[0]) // as takeWord names it
			}
		}
	case req.Op == store.OpRefund:
		p.take(t.zero, req.Now, 1, false, res)
	default: // store.OpPeek of a new key
		p.take(t.zero, req.Now, req.Cost, false, res)
	}
	s.mu.Unlock()
}

// refundPos is, for a refund just published under s.mu (its state viewed
// as v, now st), its position among the shard's takes, which [lowerLog]
// compares with theirs (takePos): a take whose position is at most
// this was decided before the refund lowered the state. In the locked
// mode it is the last decision id given; in the word mode the epoch the
// refund counted (a take records the epoch it read before deciding, plus
// one). 0 when the refund changed nothing.
func (t *memTable) refundPos(s *memShard, v int64, st []int64) uint64 {
	if t.word == nil {
		return s.seq
	}
	if st[0] == v {
		return 0
	}
	return s.epoch.Load()
}

// takePos is a taken decision's position, which refundPos is compared
// with: its id in the locked mode, its epoch in the word mode.
func (t *memTable) takePos(res *Result) uint64 {
	if t.word == nil {
		return res.id
	}
	return res.epoch
}

// view returns the state of the entry at off and, in the word mode, the
// word it was read as. In the locked mode it is the slot's own words; in
// the word mode a copy, in s.scratch, of the word read atomically: a
// caller that changes it publishes the change by compare-and-swap from v.
// s.mu must be held.
func (t *memTable) view(s *memShard, a *memSlots, off int) (st []int64, v int64) {
	if t.word == nil {
		return a.slots[off+1 : off+t.stride], 0
	}
	v = atomic.LoadInt64(&a.slots[off+1])
	s.scratch[0] = v
	return s.scratch[:], v
}

// publish writes back st, the state of the entry at off as viewed (v) and
// then changed under s.mu. In the word mode it compare-and-swaps from v,
// counting the change (memword.go), and fails, changing nothing, when a
// lock-free take has changed the state since the view (the caller views
// it again). In the locked mode st is the slot itself: nothing to do.
func (t *memTable) publish(s *memShard, a *memSlots, off int, v int64, st []int64) bool {
	if t.word == nil || st[0] == v {
		return true
	}
	s.change()
	return atomic.CompareAndSwapInt64(&a.slots[off+1], v, st[0])
}

// weigh returns, for the entry at off, the view of its state word (the
// word mode's; 0 otherwise), when it recovers, and, unless it has, what
// forgetting it at now admits (forgetCost). s.mu must be held.
func (t *memTable) weigh(s *memShard, a *memSlots, off int, now int64) (v, at, cost int64) {
	if t.meter != nil {
		v = atomic.LoadInt64(&a.slots[off+1])
		if at = wordIdleAt(v); at > now {
			st := [1]int64{v}
			cost = t.meter.forgetCost(st[:], now)
		}
		return v, at, cost
	}
	st, _ := t.view(s, a, off)
	if at = t.policy.idleAt(st); at > now {
		cost = t.policy.forgetCost(st, now)
	}
	return 0, at, cost
}

// idleAt is the policy's idleAt of the entry at off. s.mu must be held.
func (t *memTable) idleAt(s *memShard, a *memSlots, off int) int64 {
	if t.word != nil {
		return wordIdleAt(atomic.LoadInt64(&a.slots[off+1]))
	}
	return t.policy.idleAt(a.slots[off+1 : off+t.stride])
}

// drop forgets the entry at off, whose state was viewed as v. In the word
// mode it freezes the state by compare-and-swap from v and leaves a
// tombstone; it fails, changing nothing, when a lock-free take has changed
// the state since it was viewed (the caller looks again). In the locked
// mode it removes the entry, shifting later entries into its slot. s.mu
// must be held.
func (t *memTable) drop(s *memShard, a *memSlots, off int, v int64) bool {
	s.change()
	if t.word == nil {
		t.remove(s, a, off)
		return true
	}
	if !atomic.CompareAndSwapInt64(&a.slots[off+1], v, frozen) {
		return false
	}
	atomic.StoreInt64(&a.slots[off], tombHash)
	s.n--
	s.tombs++
	return true
}

// forget drops the entry at off whatever its state (a reset at now). As
// an eviction, it marks the key when the entry had not recovered, so that
// a refund of a take made before gives nothing back to the key's next
// entry, whatever the instants the callers' clocks read.
func (t *memTable) forget(s *memShard, a *memSlots, off int, now int64) {
	kh := uint64(a.slots[off])
	for {
		st, v := t.view(s, a, off)
		at := t.policy.idleAt(st)
		if t.drop(s, a, off, v) {
			if at > now {
				s.evicted.add(kh, s.epoch.Load(), at, now, max(minEvictLog, t.perShard/4))
			}
			return
		}
	}
}

// insert claims a slot for h, which the shard does not hold, making room
// first when the shard is full or too loaded. It returns the array and the
// slot's offset, or false when the shard is full and may not evict. In the
// word mode the slot's state stays frozen: the caller writes it.
func (t *memTable) insert(s *memShard, h uint64, now int64) (*memSlots, int, bool) {
	if s.n >= t.perShard {
		if t.evict {
			if t.sweepSome(s, now); s.n >= t.perShard {
				t.evictCheapest(s, h, now)
			}
		} else {
			if now >= s.nextIdle {
				t.sweep(s, now)
			}
			if s.n >= t.perShard {
				return nil, 0, false
			}
		}
	}
	a := s.arr.Load()
	if a == nil || s.n+s.tombs+1 > maxLoad(a.cap) {
		t.rebuild(s, now)
		a = s.arr.Load()
	}
	off, _ := t.find(a, h)
	atomic.StoreInt64(&a.slots[off], int64(h))
	s.n++
	return a, off, true
}

// capLimit is the most slots a shard needs: see capLimit.
func (t *memTable) capLimit() int { return capLimit(t.perShard, t.word != nil) }

// capLimit is the most slots a shard of perShard keys needs: enough for
// them under the maximum load and, in the word mode, for tombstones of a
// quarter as many, so that a full shard evicting for every insert is
// compacted (rebuilt) once per perShard/4 inserts.
func capLimit(perShard int, word bool) int {
	if word {
		return (perShard+perShard/4+1)*5/4 + 2
	}
	return perShard*5/4 + 2
}

// newSlots returns an empty array of c slots: every state frozen in the
// word mode (an empty slot's state is, see memword.go).
func (t *memTable) newSlots(c int) *memSlots {
	a := &memSlots{cap: c, slots: make([]int64, c*t.stride)}
	if t.word != nil {
		for off := 0; off < len(a.slots); off += t.stride {
			a.slots[off+1] = frozen
		}
	}
	return a
}

// rebuild copies the live entries of s into a new slot array, dropping the
// recovered ones and the tombstones, and grows it by a fifth (up to
// capLimit) while the live entries would fill more than growAt of it. In
// the word mode each old state is frozen as it is copied (a lock-free take
// of it then waits for the lock, and finds the new array); the new array
// is published once complete.
func (t *memTable) rebuild(s *memShard, now int64) {
	old := s.arr.Load()
	live, c := 0, 0
	if old != nil {
		c = old.cap
		for off := 0; off < len(old.slots); off += t.stride {
			if liveHash(uint64(old.slots[off])) && t.idleAt(s, old, off) > now {
				live++
			}
		}
	}
	// (In the word mode a lock-free take may yet revive an entry counted
	// as recovered: the array only grows, so it holds them all anyway.)
	for c < t.capLimit() && (c == 0 || live+1 > growAt(c)) {
		c = min(grow(c), t.capLimit())
	}
	a := t.newSlots(c)
	s.n, s.tombs, s.nextIdle = 0, 0, maxInt64
	if old != nil {
		for off := 0; off < len(old.slots); off += t.stride {
			h := uint64(old.slots[off])
			if !liveHash(h) {
				continue
			}
			st := old.slots[off+1 : off+t.stride]
			var at int64
			if t.word != nil {
				s.scratch[0] = atomic.SwapInt64(&old.slots[off+1], frozen)
				st, at = s.scratch[:], wordIdleAt(s.scratch[0])
			} else {
				at = t.policy.idleAt(st)
			}
			if at <= now {
				continue
			}
			s.nextIdle = min(s.nextIdle, at)
			dst, _ := t.find(a, h)
			a.slots[dst] = int64(h)
			copy(a.slots[dst+1:dst+t.stride], st)
			s.n++
		}
	}
	s.change() // after every swap, before the publication (memword.go)
	s.arr.Store(a)
}

// sweep drops the recovered entries of s and records when the next of the
// others recovers, so that a full shard is not swept again before anything
// can have recovered.
func (t *memTable) sweep(s *memShard, now int64) {
	a := s.arr.Load()
	next := maxInt64
	for i := 0; i < a.cap; {
		off := i * t.stride
		if liveHash(uint64(a.slots[off])) {
			st, v := t.view(s, a, off)
			at := t.policy.idleAt(st)
			if at <= now {
				// The locked mode shifts a later entry into i, the word
				// mode leaves a tombstone or fails: look again.
				t.drop(s, a, off, v)
				continue
			}
			next = min(next, at)
		}
		i++
	}
	s.nextIdle = next
}

// evictCheapest frees one slot of the full shard s for the new key h: among
// the entries within evictScan slots of h's home slot, the first that has
// recovered (dropping it is exact), else the one whose forgetting admits
// least (policy.forgetCost at now), and among those the nearest to recovery.
// The shard is full (perShard ≥ 1), so the scan meets an entry, if need be
// beyond evictScan slots.
func (t *memTable) evictCheapest(s *memShard, h uint64, now int64) {
	a := s.arr.Load()
	for {
		best, bestV, bestCost, bestAt := -1, int64(0), int64(0), int64(0)
		i := t.home(h, a.cap)
		for k := 0; k < a.cap && (k < evictScan || best < 0); k++ {
			off := i * t.stride
			if liveHash(uint64(a.slots[off])) {
				v, at, c := t.weigh(s, a, off, now)
				if at <= now {
					best, bestV, bestAt = off, v, at
					break
				}
				if best < 0 || c < bestCost || (c == bestCost && at < bestAt) {
					best, bestV, bestCost, bestAt = off, v, c, at
				}
			}
			if i++; i == a.cap {
				i = 0
			}
		}
		kh := uint64(a.slots[best])
		if !t.drop(s, a, best, bestV) {
			continue // a lock-free take changed it meanwhile: weigh again
		}
		if bestAt > now {
			// The epoch the drop counted: every take the entry held read
			// an earlier one (see memword.go).
			s.evicted.add(kh, s.epoch.Load(), bestAt, now, max(minEvictLog, t.perShard/4))
		}
		return
	}
}

// sweepSome drops the recovered entries among the sweepStep slots from the
// shard's hand, and moves the hand past them.
func (t *memTable) sweepSome(s *memShard, now int64) {
	a := s.arr.Load()
	i := s.hand % a.cap
	for k := 0; k < sweepStep; k++ {
		off := i * t.stride
		if liveHash(uint64(a.slots[off])) {
			if st, v := t.view(s, a, off); t.policy.idleAt(st) <= now {
				t.drop(s, a, off, v) // look again (see sweep)
				continue
			}
		}
		if i++; i == a.cap {
			i = 0
		}
	}
	s.hand = i
}

// refuse fills res with the denial of a new key in a full shard: it may
// retry when the shard's nearest entry recovers.
func (t *memTable) refuse(s *memShard, now int64, res *Result) {
	p := t.policy
	p.take(t.zero, now, res.Cost, false, res)
	wait := max(1, s.nextIdle-now)
	for i := range p.limits {
		res.per[i].allowed, res.per[i].remaining, res.per[i].retryAfter = false, 0, wait
	}
	if len(p.limits) == 1 {
		res.set(0, &res.per[0])
		return
	}
	res.summarize()
}

// remove empties the slot at off, shifting later entries of its probe run
// back so that no lookup stops early. Locked mode only: the word mode
// never moves an entry within an array (memword.go).
func (t *memTable) remove(s *memShard, a *memSlots, off int) {
	i := off / t.stride
	for j := i; ; {
		if j++; j == a.cap {
			j = 0
		}
		jo := j * t.stride
		hj := uint64(a.slots[jo])
		if hj == emptyHash {
			break
		}
		// The entry at j may move to i only if its home is not cyclically
		// within (i, j].
		k := t.home(hj, a.cap)
		if (i <= j && i < k && k <= j) || (i > j && (i < k || k <= j)) {
			continue
		}
		copy(a.slots[i*t.stride:(i+1)*t.stride], a.slots[jo:jo+t.stride])
		i = j
	}
	clear(a.slots[i*t.stride : (i+1)*t.stride])
	s.n--
}

// Len returns the number of entries the table holds, recovered or not.
func (t *memTable) Len() int {
	n := 0
	for i := range t.shards {
		s := &t.shards[i]
		s.mu.Lock()
		n += s.n
		s.mu.Unlock()
	}
	return n
}
