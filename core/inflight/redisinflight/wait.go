package redisinflight

import (
	"context"
	"errors"
	"time"

	"github.com/floodgate-go/floodgate/core/inflight"
)

// Wait takes a slot of key, waiting while every slot is held until ctx
// ends (its error is returned). The callers of this process wait in a
// bounded first-come, first-served line per key (see the package
// documentation for what holds across processes). When key's line
// already holds Options.MaxWaiters waiters, or all lines MaxWaiting and
// key has waiters or no free slot, it fails at once with an error
// wrapping inflight.ErrQueueFull: waiters of other keys never refuse a
// key a free slot (a key nobody waits for is then tried as an Acquire,
// without a place in line, decided as an Acquire is when Redis cannot
// decide). A waiter holds no goroutine; the head of a line holds one
// timer.
//
// Its first try is an Acquire's. The head then asks Redis again when
// this process releases a slot of key, on a token of MaxCalls like an
// Acquire, and otherwise polls, taking its turn among the heads of every
// line (at most Options.MaxPolls polls every PollInterval, on a budget
// of round trips of their own): a try after the first that finds its
// budget spent waits, as a full key does, and is never decided by the
// failure mode.
func (l *Limiter) Wait(ctx context.Context, key string) (*inflight.Slot, error) {
	if l.zero() {
		return nil, errZeroLimiter
	}
	turn, err := l.line.Await(ctx, key)
	if errors.Is(err, inflight.ErrQueueFull) && l.line.Len(key) == 0 {
		// The bound of all lines refused it, yet nobody waits for its
		// key: it is tried as an Acquire, without a place in line
		// (waiters of other keys, a flood's, shut no key with free
		// slots out). A key with every slot held is still refused.
		s, _, aerr := l.try(ctx, key, l.calls, false)
		if errors.Is(aerr, inflight.ErrFull) {
			return nil, err
		}
		return s, aerr
	}
	if err != nil {
		return nil, err
	}
	defer turn.Leave()
	var freed <-chan struct{}
	defer func() { l.unwatch(key, freed) }()
	tokens, retry := l.calls, false // (the first try is an Acquire's)
	for {
		freed = l.watch(key)
		s, wait, err := l.try(ctx, key, tokens, retry)
		busy := retry && errors.Is(err, l.errBusy)
		if err == nil || !busy && !errors.Is(err, inflight.ErrFull) {
			if tokens == l.polls {
				l.turns.give()
			}
			return s, err
		}
		if busy && l.pollShed != nil {
			l.pollShed()
		}
		retry = true
		d := l.opts.PollInterval
		if wait > 0 && wait < d {
			d = wait
		}
		woken, err := l.pause(ctx, freed, d)
		// A poll's turn lasts until the pause after it ends; a poll not
		// sent (busy) keeps it for the next.
		keep := busy && tokens == l.polls && err == nil && !woken
		if tokens == l.polls && !keep {
			l.turns.give()
		}
		if err != nil {
			return nil, err
		}
		if keep {
			continue
		}
		tokens = l.calls // (woken: a try on an Acquire's token)
		if woken {
			continue
		}
		polls, err := l.turns.take(ctx, freed)
		if err != nil {
			return nil, err
		}
		if polls {
			tokens = l.polls
		}
	}
}

// pause waits d, or until freed is closed (woken), or until ctx ends.
func (l *Limiter) pause(ctx context.Context, freed <-chan struct{}, d time.Duration) (woken bool, err error) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-freed:
		return true, nil
	case <-t.C:
		return false, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// Waiting returns the callers of this process waiting in key's line.
func (l *Limiter) Waiting(key string) int {
	if l.zero() {
		return 0
	}
	return l.line.Len(key)
}

// watch returns a channel closed when this process next releases a slot
// of key. Only the head of key's line watches.
func (l *Limiter) watch(key string) <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	ch := l.freed[key]
	if ch == nil {
		ch = make(chan struct{})
		l.freed[key] = ch
	}
	return ch
}

// unwatch forgets ch, the head's channel, unless a release closed it.
func (l *Limiter) unwatch(key string, ch <-chan struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c := l.freed[key]; c != nil && (<-chan struct{})(c) == ch {
		delete(l.freed, key)
	}
}

// wake tells key's line that this process released a slot of key.
func (l *Limiter) wake(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if ch := l.freed[key]; ch != nil {
		close(ch)
		delete(l.freed, key)
	}
}
