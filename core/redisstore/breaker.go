package redisstore

import (
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// The breaker's states.
const (
	stClosed   int32 = iota // decisions go to Redis
	stOpen                  // decisions go to the failure mode until the wait is over
	stHalfOpen              // one decision (the trial) is on Redis; the others go to the failure mode
)

// breaker is the store's circuit breaker: closed → open after
// Options.Failures consecutive faults; open → half-open when its jittered
// wait is over, letting one decision through to Redis over the client's
// pool (the trial); half-open → closed when a round trip succeeds, → open
// again, with twice the wait (at most Options.ProbeMax), when the trial
// fails. A successful round trip sent since it last opened closes it; one
// sent before (a late reply of a stalled round trip) does not: it says
// nothing of the Redis that the opening fault saw, and letting it close
// the breaker made it flap at the rate replies and faults alternate.
// Reopening within max of closing doubles the wait (at most max) instead
// of starting again from base: a flaky link switches at most about once
// per max/2, however fast its faults and answers alternate.
type breaker struct {
	state  atomic.Int32
	epoch  atomic.Uint64 // incremented at every opening
	fails  atomic.Int32  // consecutive faults while closed
	lastOK atomic.Int64  // Unix ns of the last answered round trip
	window time.Duration

	mu        sync.Mutex
	threshold int32
	base, max time.Duration
	wait      time.Duration // the current wait, before jitter
	until     time.Time     // open until
	closedAt  time.Time     // last closed (after an opening)
	now       func() time.Time
	rnd       func() float64 // in [0, 1)
	onOpen    func(err error)
	onClose   func()
}

// newBreaker returns a closed breaker; window is the decision deadline:
// missed deadlines are not counted while other round trips were answered
// within the last window (a slow connection, not an outage).
func newBreaker(threshold int, base, max, window time.Duration, onOpen func(error), onClose func()) *breaker {
	return &breaker{threshold: int32(threshold), base: base, max: max, window: window, now: time.Now, rnd: rand.Float64,
		onOpen: onOpen, onClose: onClose}
}

// allow reports whether a decision may go to Redis, and whether it is the
// half-open trial (whose outcome must be reported: fault, success or
// release).
func (b *breaker) allow() (ok, trial bool) {
	switch b.state.Load() {
	case stClosed:
		return true, false
	case stHalfOpen:
		return false, false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state.Load() != stOpen || b.now().Before(b.until) {
		return false, false
	}
	b.state.Store(stHalfOpen)
	return true, true
}

// fault records a failed round trip (or a decision that missed its
// deadline); trial says it was the half-open trial's. A missed deadline
// may be a blip, as may a Cluster slot's error reply (see slotLocal):
// Options.Failures of them in a row open the breaker. A refused or broken
// connection or another fault reply is certain: it opens the breaker at
// once. A blip while Redis answers other round trips (a connection being
// set up on a slow link, a late reply, a slot being migrated) is not
// counted.
func (b *breaker) fault(err error, trial bool) {
	if b.state.Load() == stClosed {
		if soft(err) && b.now().UnixNano()-b.lastOK.Load() < int64(b.window) {
			return
		}
		if !soft(err) {
			b.fails.Store(b.threshold)
		} else if b.fails.Add(1) < b.threshold {
			return
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch b.state.Load() {
	case stClosed:
		if b.fails.Load() < b.threshold {
			return
		}
		if b.wait == 0 || b.now().Sub(b.closedAt) >= b.max {
			b.wait = b.base
		} else {
			b.wait = min(2*b.wait, b.max) // reopened soon after closing: a flaky link
		}
		b.openLocked()
		if b.onOpen != nil {
			b.onOpen(err)
		}
	case stHalfOpen:
		if trial {
			b.wait = min(2*b.wait, b.max)
			b.openLocked()
		}
	}
}

// release gives the trial back without an outcome (it never reached
// Redis): the next decision may be the trial.
func (b *breaker) release() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state.Load() == stHalfOpen {
		b.until = b.now()
		b.state.Store(stOpen)
	}
}

// success records a round trip Redis answered, sent now.
func (b *breaker) success() { b.answered(b.epoch.Load()) }

// answered records a round trip Redis answered, sent at epoch (b.epoch when
// it was sent): it closes the breaker only if sent since the last opening.
func (b *breaker) answered(epoch uint64) {
	b.lastOK.Store(b.now().UnixNano())
	if b.state.Load() == stClosed {
		if b.fails.Load() != 0 {
			b.fails.Store(0)
		}
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state.Load() == stClosed || epoch != b.epoch.Load() {
		return
	}
	b.closedAt = b.now()
	b.fails.Store(0)
	b.state.Store(stClosed)
	if b.onClose != nil {
		b.onClose()
	}
}

// openLocked opens the breaker for the current wait, jittered to
// [wait/2, wait).
func (b *breaker) openLocked() {
	j := time.Duration(float64(b.wait) * (0.5 + 0.5*b.rnd()))
	b.until = b.now().Add(max(j, 1))
	b.epoch.Add(1)
	b.state.Store(stOpen)
}

// soft reports a fault that may be a blip: a deadline missed, or an error
// reply about one Cluster slot (see slotLocal).
func soft(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout() || slotLocal(err)
}
