package redisinflight

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/circuit"
	"github.com/floodgate-go/floodgate/internal/redisfault"
)

// errShed marks a call decided without Redis: the breaker open, or
// Options.MaxCalls round trips outstanding.
var errShed = fmt.Errorf("redisinflight: not sent to Redis: %w", redisstore.ErrUnavailable)

// errLate is, for the breaker, a round trip that missed its deadline.
var errLate = fmt.Errorf("redisinflight: %w", context.DeadlineExceeded)

// errOpen is a call the open breaker kept from Redis.
var errOpen = fmt.Errorf("redisinflight: circuit open: %w", errShed)

// errClosed is an Acquire's or a poll's call after Limiter.Close.
var errClosed = fmt.Errorf("redisinflight: limiter closed: %w", errShed)

// call sends f, one round trip to Redis, unless the breaker is open,
// every token of tokens is taken (Options.MaxCalls round trips of its
// kind outstanding) or, for an Acquire or a poll, the limiter is closed
// (Limiter.Close): then it fails at once with an error wrapping errShed.
// tokens is l.calls for an Acquire, l.upkeep for the release
// or renewal of a slot held, so that a flood of Acquires never keeps a
// held slot's release from Redis, l.polls for a waiting head's poll, so
// that waiters never take the tokens Acquires need. It returns by Options.Timeout whatever
// the client's own timeouts: f goes on in its goroutine until the client
// gives up, holding its token till then, so that at most MaxCalls such
// goroutines of each kind live. An error is f's, or one wrapping
// redisstore.ErrUnavailable at the deadline; when ctx itself ends first,
// its error. The outcome is told to the breaker.
//
// after, when not nil, is run in f's goroutine, still holding its token,
// once f has returned: with f's outcome and whether the caller had given
// up on it by then (ctx ended, or the deadline passed: abandoned), so
// that it can undo what f did for nobody. The caller does not wait for
// it.
func (l *Limiter) call(ctx context.Context, tokens chan struct{}, f func(context.Context) (any, error), after func(v any, err error, abandoned bool)) (any, error) {
	if tokens != l.upkeep && l.closed.Load() {
		// Not sent: a lease taken now would never be renewed (see
		// Limiter.Close). Releases still are.
		return nil, errClosed
	}
	ok, trial := l.br.Allow()
	if !ok {
		return nil, errOpen
	}
	select {
	case tokens <- struct{}{}:
	default:
		if trial {
			l.br.Release()
		}
		return nil, l.errBusy
	}
	epoch := l.br.Epoch()
	cctx, cancel := context.WithTimeout(ctx, l.opts.Timeout)
	defer cancel()
	type reply struct {
		v   any
		err error
	}
	ch := make(chan reply, 1)
	// Who has the reply: the caller (answered, set by f's goroutine once
	// the reply is sent) or nobody (abandoned, set by the caller giving
	// up first).
	const (
		waiting = iota
		answered
		abandoned
	)
	var state atomic.Int32
	go func() {
		defer func() { <-tokens }()
		v, err := f(cctx)
		if err != nil && circuit.Soft(err) && ctx.Err() == nil {
			// Its connection stopped answering: a failover may have
			// black-holed every connection open then (see
			// redisbound.Bound.Flush).
			l.bound.FlushSoon()
		}
		ch <- reply{v, err}
		gone := !state.CompareAndSwap(waiting, answered)
		if after != nil {
			after(v, err, gone)
		}
	}()
	var r reply
	select {
	case r = <-ch:
	case <-cctx.Done():
		if !state.CompareAndSwap(waiting, abandoned) {
			r = <-ch // answered at the deadline: the reply is the caller's
			break
		}
		if err := ctx.Err(); err != nil {
			l.report(nil, epoch, trial, true)
			return nil, err
		}
		l.report(errLate, epoch, trial, false)
		return nil, fmt.Errorf("redisinflight: no reply within %v: %w", l.opts.Timeout, redisstore.ErrUnavailable)
	}
	if r.err != nil && ctx.Err() != nil {
		l.report(nil, epoch, trial, true)
		return nil, ctx.Err()
	}
	l.report(r.err, epoch, trial, false)
	return r.v, r.err
}

// report tells the breaker how a round trip sent at epoch went: err is
// its error (nil: Redis answered), cut that the caller gave up, which
// says nothing of Redis. An error reply that is not a fault (WRONGTYPE,
// NOPERM: see redisfault) is an answer; the first is logged.
func (l *Limiter) report(err error, epoch uint64, trial, cut bool) {
	if cut {
		if trial {
			l.br.Release()
		}
		return
	}
	switch classify(err) {
	case redisfault.Other:
		if l.otherLogged.CompareAndSwap(false, true) {
			// (An error reply that is not a fault, such as an ACL
			// refusing the scripts, fails every call alike: under
			// FailOpen, it grants them all. Said once.)
			l.logger().Error("redisinflight: calls fail with an error reply; such Acquires fail (FailOpen grants them)",
				"mode", l.opts.FailureMode.String(), "err", err)
		}
		l.br.Answered(epoch)
	case redisfault.None, redisfault.Conflict:
		l.br.Answered(epoch)
	default:
		l.br.Fault(err, trial)
	}
}

// soft reports the faults the breaker counts up to Options.Failures
// rather than opening at once: a missed deadline, or a Cluster reply
// about one slot being moved.
func soft(err error) bool { return circuit.Soft(err) || redisfault.SlotLocal(err) }

// classify returns err's class (see redisfault); redisstore.ErrUnavailable
// (a call not sent) is a fault.
func classify(err error) redisfault.Class {
	if errors.Is(err, redisstore.ErrUnavailable) {
		return redisfault.Fault
	}
	return redisfault.Classify(err)
}

// onError tells Options.OnError of err, a panic of it recovered and
// logged: it is called on the limiter's own goroutines too (a renewal
// timer's, a round trip's), where a panic would end the process.
func (l *Limiter) onError(err error) {
	if l.opts.OnError == nil {
		return
	}
	defer func() {
		if v := recover(); v != nil {
			l.logger().Error("redisinflight: Options.OnError panicked; the limiter goes on", "err", err, "panic", fmt.Sprint(v))
		}
	}()
	l.opts.OnError(err)
}
