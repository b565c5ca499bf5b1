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
// documentation for what holds across processes); beyond
// Options.MaxWaiters (or MaxWaiting) it fails at once with an error
// wrapping inflight.ErrQueueFull. A waiter holds no goroutine; the head
// of a line holds one timer.
func (l *Limiter) Wait(ctx context.Context, key string) (*inflight.Slot, error) {
	if l.zero() {
		return nil, errZeroLimiter
	}
	turn, err := l.line.Await(ctx, key)
	if err != nil {
		return nil, err
	}
	defer turn.Leave()
	for {
		freed := l.watch(key)
		s, wait, err := l.try(ctx, key)
		if err == nil || !errors.Is(err, inflight.ErrFull) {
			l.unwatch(key, freed)
			return s, err
		}
		d := l.opts.PollInterval
		if wait > 0 && wait < d {
			d = wait
		}
		t := time.NewTimer(d)
		select {
		case <-freed:
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			l.unwatch(key, freed)
			return nil, ctx.Err()
		}
		t.Stop()
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
