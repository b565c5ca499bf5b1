package redisinflight

import (
	"bytes"
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// SendsAcquire reports whether b, bytes a client writes, hold an Acquire's
// script: its EVALSHA (by hash) or its EVAL (by source).
func SendsAcquire(b []byte) bool {
	return bytes.Contains(b, []byte(acquireScript.Hash())) || bytes.Contains(b, []byte(acquireLua))
}

// Outstanding is the round trips of l to Redis not yet over (those past
// their deadline included).
func Outstanding(l *Limiter) int { return len(l.calls) + len(l.upkeep) + len(l.polls) }

// RenewTimer is a fake renewal timer: the test runs its renewal.
type RenewTimer struct {
	Renew     func()        // the renewal the timer would run
	Period    time.Duration // its period, as last set
	Stopped   bool
	Scheduled int // the renewals scheduled: one at the start, one per Reset
	stops     atomic.Int64
}

// Stops is how many times the timer was stopped, read safely while
// another goroutine (the runtime's cleanups') may stop it.
func (r *RenewTimer) Stops() int64 { return r.stops.Load() }

// Reset records the period of the next renewal.
func (r *RenewTimer) Reset(d time.Duration) bool {
	r.Period, r.Stopped = d, false
	r.Scheduled++
	return true
}

// Stop records that no renewal is due.
func (r *RenewTimer) Stop() bool {
	r.Stopped = true
	r.stops.Add(1)
	return true
}

// FakeRenewals makes l's renewal timers fakes, sent on the returned
// channel as each slot is taken, instead of real ones.
func FakeRenewals(l *Limiter) <-chan *RenewTimer {
	c := make(chan *RenewTimer, 16)
	l.renewAfter = func(d time.Duration, f func()) renewTimer {
		r := &RenewTimer{Renew: f, Period: d, Scheduled: 1}
		c <- r
		return r
	}
	return c
}

// StopRenewalsAtEnd stops, when t ends, the renewals of the slots l took
// that the test left held (slots are renewed by default), so that a
// finished test's renewals, on its stopped Redis and its frozen fake
// clock, never run during the tests that follow. A renewal running as t
// ends finishes, and schedules no other.
func StopRenewalsAtEnd(t testing.TB, l *Limiter) {
	var mu sync.Mutex
	var timers []*endingTimer
	over := false
	l.renewAfter = func(d time.Duration, f func()) renewTimer {
		mu.Lock()
		defer mu.Unlock()
		et := &endingTimer{over: over}
		if !over {
			et.t = afterFunc(d, f)
			timers = append(timers, et)
		}
		return et
	}
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		over = true
		for _, et := range timers {
			et.end()
		}
	})
}

// endingTimer is a renewal timer that StopRenewalsAtEnd can end: no
// renewal is scheduled after that.
type endingTimer struct {
	mu   sync.Mutex
	t    renewTimer
	over bool
}

func (e *endingTimer) Reset(d time.Duration) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return !e.over && e.t.Reset(d)
}

func (e *endingTimer) Stop() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.t != nil && e.t.Stop()
}

func (e *endingTimer) end() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.over = true
	e.t.Stop()
}

// Cancelled is the abandoned Acquires whose leases l cancelled, Redis
// answering (see Limiter.cancel).
func Cancelled(l *Limiter) int64 { return l.cancelled.Load() }

// CancelFirst runs, for a new lease of key, the cancellation of an
// abandoned Acquire and then the Acquire's script, as when the script
// reaches Redis after its cancellation; it returns the script's reply.
func CancelFirst(ctx context.Context, l *Limiter, key string) (any, error) {
	member := newMember(l.leaseUS)
	rk, tomb := l.redisKeys(key, member)
	l.cancel(rk, tomb, member, l.clock().Add(l.opts.Lease))
	return acquireScript.Run(ctx, l.client, []string{rk, tomb}, l.limit, l.leaseUS, member, l.now()).Result()
}

// OnLocalStep makes f run, under FailLocal, at each step of an Acquire
// of l that Redis could not decide ("taken": it holds a local slot; there
// was also "refused", a local slot taken and given back, before
// TestAttackFailLocalRacingAcquiresBothRefused). ctx is the Acquire's.
func OnLocalStep(l *Limiter, f func(ctx context.Context, step string)) { l.localStep = f }

// LeaseSet is the sorted set in Redis of key's leases under l.
func LeaseSet(l *Limiter, key string) string {
	rk, _ := l.redisKeys(key, "")
	return rk
}

// OnPollShed makes f run each time a waiting head's poll of l finds its
// budget spent (and waits rather than being decided by the failure mode).
func OnPollShed(l *Limiter, f func()) { l.pollShed = f }

// AwaitingTurn is the heads of l's lines waiting for a turn to poll.
func AwaitingTurn(l *Limiter) int { return l.turns.waiting() }
