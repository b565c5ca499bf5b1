package redisinflight

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/floodgate-go/floodgate/core/inflight"
	"github.com/floodgate-go/floodgate/core/redisstore"
)

// lease is a slot held in Redis: member of the sorted set rk.
type lease struct {
	l           *Limiter
	key, rk, id string

	mu    sync.Mutex
	timer renewTimer // the automatic renewal's (nil with ManualRenew)
	done  bool       // released, or its slot collected unreleased (see abandon)
	ends  time.Time  // the lease ends after this (l.clock): a Lease after its last taking or renewal was sent
}

// released reports whether the lease was released.
func (ls *lease) released() bool {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	return ls.done
}

// renewTimer is the automatic renewal's timer of one lease: a
// *time.Timer, or a test's (see Limiter.renewAfter).
type renewTimer interface {
	Reset(time.Duration) bool
	Stop() bool
}

// afterFunc is time.AfterFunc as a renewTimer's maker.
func afterFunc(d time.Duration, f func()) renewTimer { return time.AfterFunc(d, f) }

// slot returns the Slot of a lease just taken by a script sent at sent.
func (l *Limiter) slot(key, rk, member string, sent time.Time) *inflight.Slot {
	ls := &lease{l: l, key: key, rk: rk, id: member, ends: sent.Add(l.opts.Lease)}
	s := inflight.NewSlot(ls.release, ls.renew)
	if !l.opts.ManualRenew {
		ls.mu.Lock() // the timer may fire before the assignment
		ls.timer = l.renewAfter(l.opts.Lease/3, ls.autoRenew)
		ls.mu.Unlock()
	}
	if ls.timer != nil || l.held != nil {
		// The timer and the count of held slots outlive a slot dropped
		// unreleased: its collection ends them (see abandon).
		runtime.AddCleanup(s, (*lease).abandon, ls)
	}
	return s
}

// abandon ends what this process keeps for a lease whose slot was
// collected unreleased (its caller's bug: nobody can release it now): its
// renewals stop, so that the lease ends within a Lease, as with
// ManualRenew, instead of being renewed for as long as this process runs
// (TestAttackDroppedSlotStopsRenewing), and under FailLocal its count
// among the key's slots held is given back, as a release's is, instead of
// shrinking the key's local share for ever
// (TestAttackDroppedSlotKeepsNoLocalShare). A renewal running meanwhile
// schedules no other, and one whose timer fired sends nothing.
func (ls *lease) abandon() {
	if !ls.end() {
		ls.l.hold(ls.key, -1)
	}
}

// end marks the lease done (renew sends nothing, autoRenew reports
// nothing) and stops its renewals; it reports whether it was done
// already (released, or abandoned).
func (ls *lease) end() (was bool) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	was, ls.done = ls.done, true
	if ls.timer != nil {
		ls.timer.Stop()
	}
	return was
}

// release removes the lease, once (inflight.Slot sees to that), whether
// ctx has ended or not: a request's context ends when its client hangs
// up, and a release never sent would keep the slot taken for the rest of
// its lease. The round trip is bounded by Options.Timeout all the same.
func (ls *lease) release(ctx context.Context) error {
	ctx = context.WithoutCancel(ctx)
	// Abandoned already: its slot was collected while its Release ran,
	// past the last use of the Slot; abandon gave its count back.
	abandoned := ls.end()
	defer ls.l.wake(ls.key)
	if !abandoned {
		defer ls.l.hold(ls.key, -1) // (once the lease is removed, or ends by itself)
	}
	_, err := ls.l.call(ctx, ls.l.upkeep, func(ctx context.Context) (any, error) {
		return ls.l.client.ZRem(ctx, ls.rk, ls.id).Result()
	}, nil)
	if err != nil {
		ls.mu.Lock()
		ends := ls.ends
		ls.mu.Unlock()
		ls.l.unreleasedLease(ls.rk, ls.id, "", ends)
		return fmt.Errorf("redisinflight: release (removed by this process's next Acquire of the key, or the lease ends by itself): %w", unavailable(err))
	}
	return nil
}

// renew extends the lease by Options.Lease from now. A lease released
// before (a renewal timer that fired as the slot was released, a Renew
// racing Release) is not renewed: it fails with inflight.ErrReleased,
// sending nothing, or, when the release's ZREM reached Redis first, with
// inflight.ErrReleased rather than ErrLeaseLost (the lease was given
// back, not lost; TestAttackRenewalAfterReleaseReportsNoLostLease).
func (ls *lease) renew(ctx context.Context) error {
	l := ls.l
	if ls.released() {
		return inflight.ErrReleased
	}
	sent := l.clock()
	v, err := l.call(ctx, l.upkeep, func(ctx context.Context) (any, error) {
		return renewScript.Run(ctx, l.client, []string{ls.rk}, ls.id, l.leaseUS, l.now()).Result()
	}, nil)
	switch {
	case err != nil:
		return fmt.Errorf("redisinflight: renew: %w", unavailable(err))
	case v != int64(1) && ls.released():
		return inflight.ErrReleased // (the release's ZREM set done before it was sent)
	case v != int64(1):
		return ErrLeaseLost
	}
	ls.mu.Lock()
	if e := sent.Add(l.opts.Lease); e.After(ls.ends) {
		ls.ends = e
	}
	ls.mu.Unlock()
	return nil
}

// autoRenew renews the lease and schedules the next renewal, until the
// slot is released, its lease is lost or the limiter is closed: Lease/3
// after a renewal, sooner after a failure (see retryAfter).
func (ls *lease) autoRenew() {
	l := ls.l
	if l.closed.Load() {
		return // (see Limiter.Close: nothing sent, nothing scheduled)
	}
	err := ls.renew(context.Background())
	if errors.Is(err, inflight.ErrReleased) || l.closed.Load() {
		// Released as the timer fired, or the limiter closed during the
		// round trip (its client, or the application's, closed with it):
		// nothing lost, nothing to report or schedule.
		return
	}
	if err != nil && !errors.Is(err, errShed) {
		l.onError(err) // (not the renewals the breaker kept from Redis: see OnError)
	}
	ls.mu.Lock()
	if ls.done || errors.Is(err, ErrLeaseLost) {
		ls.mu.Unlock()
		return
	}
	d, ok := l.opts.Lease/3, true
	if err != nil {
		d, ok = l.retryAfter(ls.ends.Sub(l.clock()))
	}
	if ok {
		ls.timer.Reset(d)
	}
	ls.mu.Unlock()
	if !ok {
		l.onError(fmt.Errorf("redisinflight: renew: Redis unreachable until the lease's end: %w", ErrLeaseLost))
	}
}

// retryAfter is when to try again a renewal that failed with left until
// the lease ends: halfway to the last instant a renewal still reaches
// Redis before that end (margin before it: 2 × Timeout, at most Lease/3),
// no sooner than Lease/64 (1 ms at least: a bounded rate) and no later
// than that instant; false once it has passed (the lease is as good as
// lost).
func (l *Limiter) retryAfter(left time.Duration) (time.Duration, bool) {
	margin := l.opts.Lease / 3
	if l.opts.Timeout < margin/2 {
		margin = 2 * l.opts.Timeout
	}
	room := left - margin
	if room <= 0 {
		return 0, false
	}
	gap := max(l.opts.Lease/64, time.Millisecond)
	return min(max(room/2, gap), room), true
}

// unavailable wraps err, an error of a round trip, in
// redisstore.ErrUnavailable unless it says so already or is the caller's
// own end.
func unavailable(err error) error {
	if errors.Is(err, redisstore.ErrUnavailable) || errors.Is(err, context.Canceled) {
		return err
	}
	return fmt.Errorf("%w: %w", redisstore.ErrUnavailable, err)
}
