package core

import (
	"context"
	"hash/maphash"
	"math/bits"
	"sync"
	"time"
)

// memTable is one policy's state in a MemoryStore: shards of linear-probing
// hash tables whose slots are stride int64 words, the key's hash (never 0,
// which marks an empty slot) followed by the policy's state.
type memTable struct {
	policy    *Policy
	seed      maphash.Seed
	shards    []memShard
	shardBits uint
	perShard  int
	evict     bool
	stride    int
	zero      []int64 // the state of a key never seen; never written
}

type memShard struct {
	mu    sync.Mutex
	slots []int64
	cap   int // slots
	n     int // live entries
	// nextIdle bounds from below when the next live entry recovers: set by
	// every sweep and rebuild, lowered by every insert. (A refund can make
	// an entry recover earlier; a full shard then sweeps a little late,
	// refusing more, never admitting more.)
	nextIdle int64
	hand     int    // the next slot the incremental sweep of a full shard examines
	seq      uint64 // consuming decisions taken in this shard: their ids
	// evicted remembers the keys evicted before they recovered (by hash),
	// so that a refund of a take made before its key's eviction gives
	// nothing back to the entry a later request made afresh (see
	// evictLog).
	evicted evictLog
	_       [128 - 72 - 16]byte
}

// Load factors: a shard grows when an insert would pass 4/5 full, by half,
// so it is between 8/15 and 4/5 full once warm: 20 to 30 bytes per GCRA key.
func maxLoad(c int) int { return c * 4 / 5 }

// evictScan is how many slots from a new key's home slot a full shard
// examines for an entry to forget (EvictCheapest): about 50 entries at the
// usual load, a bounded cost per insert.
const evictScan = 64

// sweepStep is how many slots the incremental sweep examines per insert
// into a full shard, from the shard's hand onwards, dropping the recovered
// entries: over cap/sweepStep such inserts it visits every slot.
const sweepStep = 8

const maxInt64 = int64(1<<63 - 1)

// Do applies req; see [Table].
func (t *memTable) Do(_ context.Context, req Request) (res Result, err error) {
	t.do(&req, &res)
	return res, nil
}

func (t *memTable) hash(key string) uint64 {
	h := maphash.String(t.seed, key)
	if h == 0 {
		h = 1
	}
	return h
}

// home returns the preferred slot of hash h in a shard of c slots. The top
// shardBits bits chose the shard, so they are shifted out first.
func (t *memTable) home(h uint64, c int) int {
	hi, _ := bits.Mul64(h<<t.shardBits, uint64(c))
	return int(hi)
}

// find returns the offset of h's slot, or of the empty slot where it would go.
func (t *memTable) find(s *memShard, h uint64) (int, bool) {
	if s.cap == 0 {
		return 0, false
	}
	i := t.home(h, s.cap)
	for {
		off := i * t.stride
		switch uint64(s.slots[off]) {
		case h:
			return off, true
		case 0:
			return off, false
		}
		if i++; i == s.cap {
			i = 0
		}
	}
}

func (t *memTable) do(req *Request, res *Result) {
	h := t.hash(req.Key)
	si := h >> (64 - t.shardBits) & (uint64(len(t.shards)) - 1)
	s := &t.shards[si]
	p := t.policy
	s.mu.Lock()
	off, found := t.find(s, h)
	if found && req.Op == OpTake && len(p.limits) == 1 {
		// The hot path: only the step runs under the lock; the result is
		// filled after it is released.
		st := s.slots[off+1 : off+t.stride]
		step := p.limits[0].step
		o := step.take(st, req.Now, req.Cost, true)
		id, kh := uint64(0), uint64(0)
		if o.allowed {
			s.seq++
			id, kh = s.seq<<t.shardBits|si, h
		} else if o.retryAfter != int64(Never) {
			if d, ok := step.denied(st, req.Now, req.Cost, true); ok {
				o = d
			}
		}
		s.mu.Unlock()
		res.at, res.Cost, res.policy, res.taken = req.Now, req.Cost, p, o.allowed
		res.id, res.kh = id, kh
		res.per[0] = o
		res.set(0, &o)
		return
	}
	res.id, res.kh = 0, 0
	switch {
	case req.Op == OpReset:
		if found {
			t.remove(s, off)
		}
		*res = Result{}
	case found && req.Op == OpTake:
		p.take(s.slots[off+1:off+t.stride], req.Now, req.Cost, true, res)
		if res.taken {
			s.seq++
			res.id, res.kh = s.seq<<t.shardBits|si, h
		}
	case found && req.Op == OpRefund:
		st := s.slots[off+1 : off+t.stride]
		if !s.evicted.before(h, req.id>>t.shardBits) {
			p.refund(st, req.Now, req.Taken, req.Cost, &req.Holds)
		}
		p.take(st, req.Now, 1, false, res)
	case found: // OpPeek
		p.take(s.slots[off+1:off+t.stride], req.Now, req.Cost, false, res)
	case req.Op == OpTake:
		// A new key: decide on the zero state first, so that a denial
		// (a cost beyond any quota) takes no slot.
		p.take(t.zero, req.Now, req.Cost, false, res)
		if !res.Allowed {
			break
		}
		off, ok := t.insert(s, h, off, req.Now)
		if !ok {
			t.refuse(s, req.Now, res)
			break
		}
		st := s.slots[off+1 : off+t.stride]
		p.take(st, req.Now, req.Cost, true, res)
		s.nextIdle = min(s.nextIdle, p.idleAt(st))
		if res.taken {
			s.seq++
			res.id, res.kh = s.seq<<t.shardBits|si, h
		}
	case req.Op == OpRefund:
		p.take(t.zero, req.Now, 1, false, res)
	default: // OpPeek of a new key
		p.take(t.zero, req.Now, req.Cost, false, res)
	}
	s.mu.Unlock()
}

// insert claims a slot for h, whose probe ended at the empty slot off. It
// makes room first when the shard is full or too loaded, and reports false
// when the shard is full and may not evict.
func (t *memTable) insert(s *memShard, h uint64, off int, now int64) (int, bool) {
	switch {
	case s.n >= t.perShard && t.evict:
		if t.sweepSome(s, now); s.n >= t.perShard {
			t.evictCheapest(s, h, now)
		}
		off, _ = t.find(s, h)
	case s.n >= t.perShard:
		if now >= s.nextIdle {
			t.sweep(s, now)
		}
		if s.n >= t.perShard {
			return 0, false
		}
		off, _ = t.find(s, h)
	case s.n+1 > maxLoad(s.cap):
		t.rebuild(s, now)
		off, _ = t.find(s, h)
	}
	s.slots[off] = int64(h)
	s.n++
	return off, true
}

// capLimit is the most slots a shard needs: enough for perShard entries
// under the maximum load.
func (t *memTable) capLimit() int { return t.perShard*5/4 + 2 }

// rebuild copies the live entries of s into a new slot array, dropping the
// recovered ones, and grows it by half when the live entries still fill
// more than two thirds of the maximum load.
func (t *memTable) rebuild(s *memShard, now int64) {
	live := 0
	for off := 0; off < len(s.slots); off += t.stride {
		if s.slots[off] != 0 && t.policy.idleAt(s.slots[off+1:off+t.stride]) > now {
			live++
		}
	}
	c := s.cap
	if c == 0 || live+1 > maxLoad(c)*2/3 {
		c = min(max(8, c+c/2), t.capLimit())
	}
	old := s.slots
	s.slots, s.cap, s.n, s.nextIdle = make([]int64, c*t.stride), c, 0, maxInt64
	for off := 0; off < len(old); off += t.stride {
		if old[off] == 0 {
			continue
		}
		at := t.policy.idleAt(old[off+1 : off+t.stride])
		if at <= now {
			continue
		}
		s.nextIdle = min(s.nextIdle, at)
		dst, _ := t.find(s, uint64(old[off]))
		copy(s.slots[dst:dst+t.stride], old[off:off+t.stride])
		s.n++
	}
}

// sweep drops the recovered entries of s in place and records when the
// next of the others recovers, so that a full shard is not swept again
// before anything can have recovered.
func (t *memTable) sweep(s *memShard, now int64) {
	next := maxInt64
	for i := 0; i < s.cap; {
		off := i * t.stride
		if s.slots[off] != 0 {
			at := t.policy.idleAt(s.slots[off+1 : off+t.stride])
			if at <= now {
				t.remove(s, off) // shifts a later entry into i: look again
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
	p := t.policy
	best, bestCost, bestAt := -1, int64(0), int64(0)
	i := t.home(h, s.cap)
	for k := 0; k < s.cap && (k < evictScan || best < 0); k++ {
		off := i * t.stride
		if s.slots[off] != 0 {
			st := s.slots[off+1 : off+t.stride]
			at := p.idleAt(st)
			if at <= now {
				best = off
				break
			}
			c := p.forgetCost(st, now)
			if best < 0 || c < bestCost || (c == bestCost && at < bestAt) {
				best, bestCost, bestAt = off, c, at
			}
		}
		if i++; i == s.cap {
			i = 0
		}
	}
	if at := p.idleAt(s.slots[best+1 : best+t.stride]); at > now {
		s.evicted.add(uint64(s.slots[best]), s.seq, at, now, max(minEvictLog, t.perShard/4))
	}
	t.remove(s, best)
}

// sweepSome drops the recovered entries among the sweepStep slots from the
// shard's hand, and moves the hand past them.
func (t *memTable) sweepSome(s *memShard, now int64) {
	i := s.hand % s.cap
	for k := 0; k < sweepStep; k++ {
		off := i * t.stride
		if s.slots[off] != 0 && t.policy.idleAt(s.slots[off+1:off+t.stride]) <= now {
			t.remove(s, off) // shifts a later entry into i: look again
			continue
		}
		if i++; i == s.cap {
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
	if len(p.limits) == 1 {
		res.Allowed, res.Remaining, res.RetryAfter = false, 0, time.Duration(wait)
		return
	}
	for i := range p.limits {
		res.per[i].allowed, res.per[i].remaining, res.per[i].retryAfter = false, 0, wait
	}
	res.summarize()
}

// remove empties the slot at off, shifting later entries of its probe run
// back so that no lookup stops early.
func (t *memTable) remove(s *memShard, off int) {
	i := off / t.stride
	for j := i; ; {
		if j++; j == s.cap {
			j = 0
		}
		jo := j * t.stride
		hj := uint64(s.slots[jo])
		if hj == 0 {
			break
		}
		// The entry at j may move to i only if its home is not cyclically
		// within (i, j].
		k := t.home(hj, s.cap)
		if (i <= j && i < k && k <= j) || (i > j && (i < k || k <= j)) {
			continue
		}
		copy(s.slots[i*t.stride:(i+1)*t.stride], s.slots[jo:jo+t.stride])
		i = j
	}
	clear(s.slots[i*t.stride : (i+1)*t.stride])
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
