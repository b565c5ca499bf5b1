package core

import (
	"fmt"
	"time"
)

// LeakyBucket is a queue that drains at Rate with room for Capacity units:
// traffic shaping in the style of nginx's limit_req. Instead of only
// admitting or denying, it tells each admitted request how long to wait
// (Result.Delay) so that admitted requests leave at the drain rate.
//
// It is kept in the "virtual scheduling" form of GCRA: one word per key, the
// theoretical arrival time TAT, with I = Rate.Period/Rate.Count rounded up to
// a nanosecond. A request of cost c at now starts at start = max(TAT, now),
// moves TAT to TAT' = start + c·I, and is admitted when TAT' − now ≤
// Capacity·I: from an empty queue a burst of Capacity units is admitted and
// the next unit is denied until one has drained. An admitted request gets
//
//	Delay = max(0, start − now − max(0, NoDelay−1)·I)
//
// so the first NoDelay units of a burst proceed at once and each later one
// waits for its slot. NoDelay 0 and 1 both mean pure shaping: the first
// request passes at once and the others are spaced by I. NoDelay = Capacity
// never delays anything and is a meter that decides exactly as
// GCRA{Rate: Rate, Burst: Capacity}.
//
// Mapping from nginx's limit_req: nginx admits from an idle state the
// request it serves plus burst=b excess requests, and delays the excess
// ones beyond delay=d (default 0), so
//
//	limit_req rate=r burst=b delay=d  ↔  LeakyBucket{Rate: r, Capacity: b+1, NoDelay: d+1}
//	limit_req rate=r burst=b nodelay  ↔  LeakyBucket{Rate: r, Capacity: b+1, NoDelay: b+1}
//
// (nginx keeps milliseconds; LeakyBucket keeps nanoseconds.)
//
// Remaining is ⌊(Capacity·I − (TAT'−now))/I⌋, the room left in the queue.
// ResetAfter is TAT' − now, the time the queue takes to drain. A denied
// request's RetryAfter is exactly TAT' − now − Capacity·I, or [Never] when
// its cost exceeds Capacity.
//
// A caller whose now is older than what the key has seen is decided more
// strictly, never more leniently: start − now only grows as now shrinks, and
// its Delay is measured from its own now, so it waits for the same slot.
//
// A refund moves TAT back by cost·I, but not below now: time that has
// already drained is not given back twice. Once TAT has passed the queue is
// empty and the key is exactly a key never seen. The limit's quota is
// Capacity and its window Capacity·I, the time a full queue takes to drain.
type LeakyBucket struct {
	// Rate is how fast the queue drains.
	Rate Rate
	// Capacity is how many units the queue holds; 0 means Rate.Count.
	Capacity int64
	// NoDelay is how many units of a burst proceed without waiting, in
	// [0, Capacity]; 0 and 1 both delay every unit after the first.
	NoDelay int64
}

// Validate reports whether b is usable.
func (b LeakyBucket) Validate() error { _, err := b.compile(); return err }

// WithDefaults returns b with a zero Capacity replaced by Rate.Count.
func (b LeakyBucket) WithDefaults() LeakyBucket {
	if b.Capacity == 0 {
		b.Capacity = b.Rate.Count
	}
	return b
}

func (b LeakyBucket) value() Algorithm { return b }

func (b LeakyBucket) compile() (stepper, error) {
	if err := b.Rate.validate("LeakyBucket"); err != nil {
		return nil, err
	}
	capacity := b.WithDefaults().Capacity
	if capacity < 1 {
		return nil, fmt.Errorf("core: LeakyBucket: capacity %d must be ≥ 1: %w", b.Capacity, ErrInvalidConfig)
	}
	if b.NoDelay < 0 || b.NoDelay > capacity {
		return nil, fmt.Errorf("core: LeakyBucket: no-delay %d must be in [0, capacity %d]: %w", b.NoDelay, capacity, ErrInvalidConfig)
	}
	iv := int64(b.Rate.Interval())
	tol, ok := mulSpan(capacity, iv)
	if !ok {
		return nil, fmt.Errorf("core: LeakyBucket: capacity %d × interval %v exceeds 36 years: %w", capacity, time.Duration(iv), ErrInvalidConfig)
	}
	// (NoDelay−1)·I < Capacity·I: no overflow.
	free := max(0, b.NoDelay-1) * iv
	return &leakyStep{gcraStep: *newGCRAStep(iv, tol, capacity), free: free}, nil
}

// leakyStep is GCRA's meter with the delay of shaping on top: the admission
// decision, remaining, retry, refund and idleAt are GCRA's.
type leakyStep struct {
	gcraStep
	free int64 // (NoDelay−1)·I: how far ahead of now a request may start undelayed
}

func (l *leakyStep) take(st []int64, now, cost int64, commit bool) outcome {
	o, tat := l.next(st[0], now, cost)
	if commit && o.allowed {
		st[0] = tat
	}
	return o
}

// undelayed is the debt (TAT − now) up to which a take proceeds at once:
// one at a larger debt is delayed by the excess, whatever its cost (see
// shaper).
func (l *leakyStep) undelayed() int64 { return l.free }

// next is gcraStep.next with the delay of an admitted take: start − now
// (from the TAT before the take) beyond what may start undelayed.
func (l *leakyStep) next(tat, now, cost int64) (outcome, int64) {
	o, after := l.gcraStep.next(tat, now, cost)
	if o.allowed && cost > 0 { // (a report of cost 0 admits nothing: no delay)
		o.delay = nonNeg(nonNeg(tat-now) - l.free)
	}
	return o, after
}
