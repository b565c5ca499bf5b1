package inflight

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"sync"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/waitline"
)

// Defaults of [MemoryOptions].
const (
	DefaultMaxKeys    = 1 << 20
	DefaultOverflow   = 4096
	DefaultMaxWaiters = 64
	DefaultMaxWaiting = 1 << 16
)

const shards = 64

// maxOverflow bounds MemoryOptions.Overflow: its buckets are allocated by
// NewMemory (16 bytes each: 16 MiB at this bound).
const maxOverflow = 1 << 20

// MemoryOptions configures a [Memory]. The zero MemoryOptions is usable.
type MemoryOptions struct {
	// MaxKeys bounds the keys holding slots at once, rounded up to a
	// multiple of the table's shards (64: each holds its share); 0 means
	// [DefaultMaxKeys]. A key holding no slot takes no memory.
	MaxKeys int
	// Overflow is how many shared overflow buckets count the keys that
	// find the table full; 0 means [DefaultOverflow]. See [Memory]. The
	// buckets are allocated at once: at most 1,048,576 (16 MiB).
	Overflow int
	// MaxWaiters bounds the waiters of one key in Wait; 0 means
	// [DefaultMaxWaiters]. MaxWaiting bounds the waiters of all keys;
	// 0 means [DefaultMaxWaiting].
	MaxWaiters, MaxWaiting int
}

// Memory is a concurrency limiter of one process: at most Limit slots of
// each key are held at once. It is safe for concurrent use.
//
// A key is in the table while it holds a slot, and leaves it when its
// last slot is released: memory follows the requests in flight, not the
// keys ever seen. The table holds at most MaxKeys keys (rounded up to a
// multiple of its shards). A key that finds the table full, and a key
// absent from the table that holds slots in its overflow bucket already,
// is counted in one of Overflow shared buckets chosen by its hash, each
// with the same Limit. So no key that holds slots is ever forgotten (a
// flood of keys cannot free anyone's slots: no key exceeds Limit), and a
// newcomer is refused only when its shard of the table and its bucket
// are both full (slots others hold in a bucket never refuse a key the
// table has room for): to shut
// newcomers out, a flood must hold MaxKeys + Overflow × Limit requests in
// flight at once. Keys sharing a bucket share its Limit while the table
// is full (a newcomer may be refused because of others: fewer admissions,
// never more).
type Memory struct {
	limit int
	seed  maphash.Seed
	shard [shards]shard
	line  *waitline.Lines
}

type shard struct {
	mu   sync.Mutex
	keys map[string]*entry
	max  int
	over []entry
	// inOver counts, by key hash, the slots keys hold in over: a key
	// holding some stays in its bucket (never Limit there and Limit more
	// in the table); made at the first, emptied with the last.
	inOver map[uint64]int
	// roomq holds, first come first served, a channel of each waiter
	// refused by a full table: a key leaving the table closes the first
	// one only (one waiter woken a place, not every waiter of the shard:
	// that made N waiters cost N²/2 tries to drain), and a try that
	// leaves a place unused passes it on (see wakeRoom).
	roomq []chan struct{}
	_     [48]byte // keep shards' mutexes on separate cache lines
}

// entry counts the slots held in a key or overflow bucket; q holds, first
// come first served, a channel of each waiter it refused: a release closes
// the first only (an overflow bucket is shared by many keys' waiters:
// waking them all made N cost N²/2 tries), and a slot a woken waiter
// leaves goes to the next (see wake).
type entry struct {
	n int
	q *[]chan struct{} // (a pointer: an entry stays 16 bytes)
}

// wake wakes the first waiter of e, when e has a free slot. sh.mu is held.
func (e *entry) wake(limit int) {
	if e.q == nil || e.n >= limit {
		return
	}
	q := *e.q
	close(q[0])
	q[0] = nil
	if *e.q = q[1:]; len(q) == 1 {
		e.q = nil
	}
}

// drop takes c out of q; one no longer there was closed by a wake (the
// slot or place it was woken for, which its waiter will not take now),
// and is reported false. sh.mu is held.
func drop(q *[]chan struct{}, c <-chan struct{}) bool {
	if q == nil {
		return false
	}
	for i, x := range *q {
		if x == c {
			*q = slices.Delete(*q, i, i+1)
			return true
		}
	}
	return false
}

// NewMemory returns a concurrency limiter of limit slots per key. It
// refuses a limit below 1, negative options and an Overflow above
// 1,048,576 with an error wrapping [core.ErrInvalidConfig]. Any larger
// limit, MaxKeys, MaxWaiters or MaxWaiting is accepted (math.MaxInt: no
// bound): none is allocated ahead.
func NewMemory(limit int, opts MemoryOptions) (*Memory, error) {
	if limit < 1 {
		return nil, fmt.Errorf("inflight: limit %d below 1: %w", limit, core.ErrInvalidConfig)
	}
	if opts.MaxKeys < 0 || opts.Overflow < 0 || opts.MaxWaiters < 0 || opts.MaxWaiting < 0 {
		return nil, fmt.Errorf("inflight: negative MemoryOptions: %w", core.ErrInvalidConfig)
	}
	if opts.Overflow > maxOverflow {
		return nil, fmt.Errorf("inflight: Overflow %d above %d: %w", opts.Overflow, maxOverflow, core.ErrInvalidConfig)
	}
	opts.MaxKeys = cmp.Or(opts.MaxKeys, DefaultMaxKeys)
	opts.Overflow = cmp.Or(opts.Overflow, DefaultOverflow)
	m := &Memory{limit: limit, seed: maphash.MakeSeed(),
		line: waitline.New(cmp.Or(opts.MaxWaiters, DefaultMaxWaiters), cmp.Or(opts.MaxWaiting, DefaultMaxWaiting), ErrQueueFull)}
	for i := range m.shard {
		s := &m.shard[i]
		s.keys = make(map[string]*entry)
		s.max = ceilDiv(opts.MaxKeys, shards)
		s.over = make([]entry, ceilDiv(opts.Overflow, shards))
	}
	return m, nil
}

// ceilDiv is ⌈a/b⌉ for a ≥ 0, b > 0, without overflow (a + b - 1 would
// wrap for a near math.MaxInt).
func ceilDiv(a, b int) int {
	q := a / b
	if a%b != 0 {
		q++
	}
	return q
}

// errZeroMemory is returned by Acquire and Wait of a nil or zero Memory.
var errZeroMemory = fmt.Errorf("inflight: nil or zero Memory (make it with NewMemory): %w", core.ErrInvalidConfig)

// zero reports whether m is nil or zero, not made by NewMemory.
func (m *Memory) zero() bool { return m == nil || m.line == nil }

// Limit returns the slots each key may hold at once (0 for a nil or zero
// Memory, not made by NewMemory).
func (m *Memory) Limit() int {
	if m.zero() {
		return 0
	}
	return m.limit
}

// Acquire takes a slot of key, or fails at once with [ErrFull]. It never
// waits. A nil or zero Memory fails with an error wrapping
// [core.ErrInvalidConfig].
func (m *Memory) Acquire(ctx context.Context, key string) (*Slot, error) {
	if m.zero() {
		return nil, errZeroMemory
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s, _ := m.try(key, false); s != nil {
		return s, nil
	}
	return nil, ErrFull
}

// Wait takes a slot of key, waiting for one while every slot is taken,
// until ctx ends (its error is returned). Waiters of a key are served
// first come, first served: a waiter tries only once every waiter of the
// key that called Wait before it has got its slot or given up. Acquire
// does not queue: a slot freed while the line's head is being woken may
// go to an Acquire instead. When the key's line already holds
// MaxWaiters waiters, or all lines MaxWaiting and the key has waiters or
// no free slot, Wait fails at once with an error wrapping
// [ErrQueueFull]: waiters of other keys never refuse a key a free slot. A waiter costs no goroutine and no
// timer; its context's end wakes it at once. A nil or zero Memory fails
// with an error wrapping [core.ErrInvalidConfig].
func (m *Memory) Wait(ctx context.Context, key string) (*Slot, error) {
	if m.zero() {
		return nil, errZeroMemory
	}
	turn, err := m.line.Await(ctx, key)
	if errors.Is(err, ErrQueueFull) && m.line.Len(key) == 0 {
		// The bound of all lines refused it, yet nobody waits for its
		// key: a free slot is its own (waiters of other keys, a flood's,
		// shut no key with free slots out).
		if s, _ := m.try(key, false); s != nil {
			return s, nil
		}
	}
	if err != nil {
		return nil, err
	}
	defer turn.Leave()
	for {
		s, w := m.try(key, true)
		if s != nil {
			return s, nil
		}
		select {
		case <-w.freed:
			m.unwait(w, false, true)
		case <-w.room:
			m.unwait(w, true, false)
		case <-ctx.Done():
			m.unwait(w, true, true)
			return nil, ctx.Err()
		}
	}
}

// watch is what a refused waiter sleeps on: freed, its channel in the
// queue of the entry e that refused it, and room, when the table was
// full, its channel in the shard's roomq.
type watch struct {
	sh          *shard
	e           *entry
	freed, room <-chan struct{}
}

// unwait takes w's channels (freed and room, as asked) out of their
// queues; one closed meanwhile is passed on (see drop).
func (m *Memory) unwait(w watch, freed, room bool) {
	w.sh.mu.Lock()
	defer w.sh.mu.Unlock()
	if freed && !drop(w.e.q, w.freed) {
		w.e.wake(m.limit)
	} else if freed && len(*w.e.q) == 0 {
		w.e.q = nil
	}
	if room && w.room != nil && !drop(&w.sh.roomq, w.room) {
		w.sh.wakeRoom()
	}
}

// wakeRoom wakes the first waiter for a place in the table, when there is
// one. sh.mu is held.
func (sh *shard) wakeRoom() {
	if len(sh.roomq) == 0 || len(sh.keys) >= sh.max {
		return
	}
	close(sh.roomq[0])
	sh.roomq[0] = nil
	sh.roomq = sh.roomq[1:]
	if len(sh.roomq) == 0 {
		sh.roomq = nil
	}
}

// try takes a slot of key, or returns, when watch is set, a channel closed
// at the next release in the entry that refused it and, when key was
// counted in its overflow bucket for want of room in the table, one
// closed when a key next leaves the table (nil otherwise).
func (m *Memory) try(key string, watching bool) (s *Slot, w watch) {
	h := maphash.String(m.seed, key)
	sh := &m.shard[h&(shards-1)]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	// A place in the table this try leaves (its key is in the table or
	// its bucket already, or it is a place a woken waiter did not take)
	// goes to the next waiter for one.
	defer sh.wakeRoom()
	// As well a slot of its bucket (its key may have moved to the table
	// since a release woke its waiter for that slot).
	bucket := &sh.over[(h>>32)%uint64(len(sh.over))]
	defer bucket.wake(m.limit)
	e, over, tableFull := sh.keys[key], false, false
	if e == nil {
		// The bucket counts a key while the table is full, and while the
		// key holds slots in it (then only: others held there, a flood's
		// left from when the table was full, shut no newcomer out of a
		// table with room).
		switch {
		case sh.inOver[h] > 0:
			e, over = bucket, true
		case len(sh.keys) >= sh.max:
			e, over, tableFull = bucket, true, true
		default:
			e = &entry{}
			sh.keys[key] = e
		}
	}
	if e.n >= m.limit {
		if !watching {
			return nil, w
		}
		c := make(chan struct{})
		if e.q == nil {
			e.q = new([]chan struct{})
		}
		*e.q = append(*e.q, c)
		w = watch{sh: sh, e: e, freed: c}
		if tableFull {
			// Room in the table serves it as well as a slot of the
			// bucket: wait for either.
			c := make(chan struct{})
			sh.roomq = append(sh.roomq, c)
			w.room = c
		}
		return nil, w
	}
	e.n++
	if over {
		if sh.inOver == nil {
			sh.inOver = make(map[uint64]int)
		}
		sh.inOver[h]++
	}
	return newSlot(&Slot{mem: m, sh: sh, e: e, key: key, hash: h, over: over}), w
}

// release gives back a slot held in e, by key of hash h.
func (m *Memory) release(sh *shard, key string, h uint64, e *entry, over bool) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	e.n--
	e.wake(m.limit)
	switch {
	case over:
		if sh.inOver[h]--; sh.inOver[h] == 0 {
			delete(sh.inOver, h)
		}
		if len(sh.inOver) == 0 {
			sh.inOver = nil // (a map never shrinks: a flood's leaves with it)
		}
	case e.n == 0:
		delete(sh.keys, key)
		if e.q != nil { // (a key's line has one head: none left, as a rule)
			for _, c := range *e.q {
				close(c)
			}
			e.q = nil
		}
		sh.wakeRoom()
	}
}

// InFlight returns the slots key holds now (in its overflow bucket, the
// bucket's, shared with other keys).
func (m *Memory) InFlight(key string) int {
	if m.zero() {
		return 0
	}
	h := maphash.String(m.seed, key)
	sh := &m.shard[h&(shards-1)]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if e := sh.keys[key]; e != nil {
		return e.n
	}
	return sh.over[(h>>32)%uint64(len(sh.over))].n
}

// Waiting returns the callers waiting in key's line (see [Memory.Wait]).
func (m *Memory) Waiting(key string) int {
	if m.zero() {
		return 0
	}
	return m.line.Len(key)
}
