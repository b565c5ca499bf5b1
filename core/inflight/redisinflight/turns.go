package redisinflight

import (
	"container/list"
	"context"
	"sync"
)

// turns are the waiting heads' turns to poll Redis (see Limiter.Wait): a
// semaphore of Options.MaxPolls turns, given first come, first served, so
// that every head polls in its turn however many others wait.
type turns struct {
	mu    sync.Mutex
	free  int
	queue list.List // of *turnWait, in their order of arrival
}

// turnWait is a head waiting for a turn; given is closed when it gets one.
type turnWait struct {
	given  chan struct{}
	queued bool
}

// take returns true once the caller holds a turn, which it must give
// back; or false when freed is closed first, or ctx's error when ctx ends
// first (then it holds none).
func (t *turns) take(ctx context.Context, freed <-chan struct{}) (bool, error) {
	t.mu.Lock()
	if t.free > 0 && t.queue.Len() == 0 {
		t.free--
		t.mu.Unlock()
		return true, nil
	}
	w := &turnWait{given: make(chan struct{}), queued: true}
	el := t.queue.PushBack(w)
	t.mu.Unlock()
	var err error
	select {
	case <-w.given:
		return true, nil
	case <-freed:
	case <-ctx.Done():
		err = ctx.Err()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if w.queued {
		t.queue.Remove(el)
		return false, err
	}
	// Given a turn meanwhile: to the next in line.
	t.giveLocked()
	return false, err
}

// give gives back a turn taken.
func (t *turns) give() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.giveLocked()
}

func (t *turns) giveLocked() {
	if el := t.queue.Front(); el != nil {
		w := t.queue.Remove(el).(*turnWait)
		w.queued = false
		close(w.given)
		return
	}
	t.free++
}

// waiting returns the heads waiting for a turn.
func (t *turns) waiting() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.queue.Len()
}
