package inflight

import (
	"context"
	"errors"
	"sync/atomic"
)

// ErrFull is returned by Acquire when every slot of the key is taken.
var ErrFull = errors.New("inflight: every slot of the key is in use")

// ErrReleased is returned by [Slot.Release] and [Slot.Renew] on a slot
// released before: nothing is changed.
var ErrReleased = errors.New("inflight: slot already released")

// ErrQueueFull is wrapped by the error of Wait when the key's wait line,
// or all lines together, already hold their bound of waiters: the caller
// is refused at once instead of waiting.
var ErrQueueFull = errors.New("inflight: wait queue full")

// Slot is one request's hold on a concurrency slot of its key, from
// Acquire or Wait. It is safe for concurrent use; release it exactly when
// the request ends. Share it by pointer: a copy of the struct is not a
// slot of its own, it releases (once, with every copy) the slot it was
// copied from.
type Slot struct {
	// self is the slot made by Acquire, Wait or NewSlot, whose released
	// flag every copy of the struct reads (nil in the zero Slot): a copy
	// with a flag of its own gave the slot back twice.
	self     *Slot
	released atomic.Bool
	over     bool                            // (beside released: a Slot stays 80 bytes)
	release  func(ctx context.Context) error // nil for a Memory slot
	renew    func(ctx context.Context) error

	// A Memory slot: held in entry e of shard sh (an overflow bucket when
	// over), for key of hash hash.
	mem  *Memory
	sh   *shard
	e    *entry
	key  string
	hash uint64
}

// NewSlot returns a slot that release gives back, once, and that renew
// (nil for slots without a lease) extends. It is for implementations of
// concurrency limiters on other stores; callers get their slots from
// Acquire or Wait.
func NewSlot(release, renew func(ctx context.Context) error) *Slot {
	return newSlot(&Slot{release: release, renew: renew})
}

// newSlot returns s, made its own self.
func newSlot(s *Slot) *Slot {
	s.self = s
	return s
}

// origin returns the slot s was made as (s itself unless s is a copy of
// the struct), nil for a nil or zero Slot and one that holds nothing.
func (s *Slot) origin() *Slot {
	if s == nil || s.self == nil || (s.self.release == nil && s.self.mem == nil) {
		return nil
	}
	return s.self
}

// Release gives the slot back. The first call releases it; every later
// call returns [ErrReleased] and changes nothing. An error of the store
// (Redis unreachable) is returned too: the slot then comes back when its
// lease ends. A nil Slot returns ErrReleased.
func (s *Slot) Release(ctx context.Context) error {
	if s = s.origin(); s == nil || !s.released.CompareAndSwap(false, true) {
		return ErrReleased
	}
	if s.mem != nil {
		s.mem.release(s.sh, s.key, s.hash, s.e, s.over)
		return nil
	}
	return s.release(ctx)
}

// Renew extends the slot's lease (a slot in Redis) by its full TTL, for a
// request that runs longer than the lease (redisinflight renews held
// slots by itself unless its ManualRenew is set); for a slot without a
// lease (in memory) it does nothing. A released slot returns [ErrReleased].
func (s *Slot) Renew(ctx context.Context) error {
	if s = s.origin(); s == nil || s.released.Load() {
		return ErrReleased
	}
	if s.renew == nil {
		return nil
	}
	return s.renew(ctx)
}

// Released reports whether the slot, or a copy of it, was released; a
// nil or zero Slot, which holds nothing, reports true.
func (s *Slot) Released() bool {
	s = s.origin()
	return s == nil || s.released.Load()
}
