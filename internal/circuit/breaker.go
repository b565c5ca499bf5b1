// Package circuit is the circuit breaker of floodgate's Redis clients
// (core/redisstore, core/inflight/redisinflight): closed → open →
// half-open with one trial over the client's own pool, jittered waits.
package circuit

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

// Breaker is a circuit breaker: closed → open after Config.Failures
// consecutive soft faults (or one hard fault); open → half-open when its jittered
// wait is over, letting one decision through to Redis over the client's
// pool (the trial); half-open → closed when a round trip succeeds, → open
// again, with twice the wait (at most Config.Max), when the trial
// fails. A successful round trip sent since it last opened closes it; one
// sent before (a late reply of a stalled round trip) does not: it says
// nothing of the Redis that the opening fault saw, and letting it close
// the breaker made it flap at the rate replies and faults alternate.
// Reopening within max of closing doubles the wait (at most max) instead
// of starting again from base: a flaky link switches at most about once
// per max/2, however fast its faults and answers alternate.
// It is safe for concurrent use.
type Breaker struct {
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
	soft      func(error) bool
	onOpen    func(err error)
	onClose   func()
}

// Config configures a [Breaker]; every field but the hooks is required.
type Config struct {
	// Failures is how many consecutive soft faults open the breaker.
	Failures int
	// Base is the first wait once open (jittered to [Base/2, Base));
	// Max bounds the wait, which doubles after each failed trial.
	Base, Max time.Duration
	// Window is the decision deadline: soft faults are not counted while
	// other round trips were answered within the last Window (a slow
	// connection, not an outage).
	Window time.Duration
	// Soft, when set, reports the faults that may be blips (counted up
	// to Failures); nil means [Soft]. Other faults open the breaker at
	// once.
	Soft func(error) bool
	// Now and Rand replace time.Now and rand.Float64 (in [0, 1)) when set.
	Now  func() time.Time
	Rand func() float64
	// OnOpen and OnClose, when set, are called under the breaker's lock
	// at every opening (with its fault) and closing.
	OnOpen  func(err error)
	OnClose func()
}

// New returns a closed breaker.
func New(c Config) *Breaker {
	b := &Breaker{threshold: int32(c.Failures), base: c.Base, max: c.Max, window: c.Window, now: c.Now, rnd: c.Rand,
		soft: c.Soft, onOpen: c.OnOpen, onClose: c.OnClose}
	if b.now == nil {
		b.now = time.Now
	}
	if b.rnd == nil {
		b.rnd = rand.Float64
	}
	if b.soft == nil {
		b.soft = Soft
	}
	return b
}

// Allow reports whether a decision may go to Redis, and whether it is the
// half-open trial (whose outcome must be reported: fault, success or
// release).
func (b *Breaker) Allow() (ok, trial bool) {
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

// Fault records a failed round trip (or a decision that missed its
// deadline); trial says it was the half-open trial's. A missed deadline
// may be a blip, as may any fault Config.Soft reports: Config.Failures of
// them in a row open the breaker. A refused or broken
// connection or another fault reply is certain: it opens the breaker at
// once. A blip while Redis answers other round trips (a connection being
// set up on a slow link, a late reply, a slot being migrated) is not
// counted.
func (b *Breaker) Fault(err error, trial bool) {
	if b.state.Load() == stClosed {
		if b.soft(err) && b.now().UnixNano()-b.lastOK.Load() < int64(b.window) {
			return
		}
		if !b.soft(err) {
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

// Release gives the trial back without an outcome (it never reached
// Redis): the next decision may be the trial.
func (b *Breaker) Release() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state.Load() == stHalfOpen {
		b.until = b.now()
		b.state.Store(stOpen)
	}
}

// Closed reports whether decisions go to Redis (the breaker is neither
// open nor half-open).
func (b *Breaker) Closed() bool { return b.state.Load() == stClosed }

// Epoch counts the openings: read it when a round trip is sent, and give
// it to Answered when the round trip is answered.
func (b *Breaker) Epoch() uint64 { return b.epoch.Load() }

// Answered records a round trip Redis answered, sent at epoch (Epoch when
// it was sent): it closes the breaker only if sent since the last opening.
func (b *Breaker) Answered(epoch uint64) {
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
func (b *Breaker) openLocked() {
	j := time.Duration(float64(b.wait) * (0.5 + 0.5*b.rnd()))
	b.until = b.now().Add(max(j, 1))
	b.epoch.Add(1)
	b.state.Store(stOpen)
}

// Soft reports a fault that may be a blip: a deadline missed.
func Soft(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}
