// Package waitline keeps bounded first-come, first-served lines of waiters
// per key: only the waiter at the head of a key's line may try to proceed,
// and it leaves the line when it is done or gives up, letting the next one
// try. It starts no goroutine and holds no timer.
package waitline

import (
	"container/list"
	"context"
	"fmt"
	"sync"
)

// Lines holds one line per key with waiters. The zero Lines is not usable:
// make it with [New].
type Lines struct {
	mu      sync.Mutex
	lines   map[string]*list.List
	perKey  int
	total   int
	waiting int
	full    error
}

// New returns lines of at most perKey waiters per key and total waiters in
// all, both at least 1; a waiter beyond them is refused with an error
// wrapping full.
func New(perKey, total int, full error) *Lines {
	return &Lines{lines: make(map[string]*list.List), perKey: perKey, total: total, full: full}
}

// Turn is one waiter's place in a line.
type Turn struct {
	l     *Lines
	key   string
	el    *list.Element
	ready chan struct{}
	left  bool
}

// Join puts a waiter at the tail of key's line, or fails at once with an
// error wrapping the Lines' full error. The Turn must be left (Leave) exactly
// when the waiter is done.
func (l *Lines) Join(key string) (*Turn, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	q := l.lines[key]
	if l.waiting >= l.total || (q != nil && q.Len() >= l.perKey) {
		n := 0
		if q != nil {
			n = q.Len()
		}
		return nil, fmt.Errorf("%d waiting for the key, %d in all: %w", n, l.waiting, l.full)
	}
	if q == nil {
		q = list.New()
		l.lines[key] = q
	}
	t := &Turn{l: l, key: key, ready: make(chan struct{})}
	t.el = q.PushBack(t)
	l.waiting++
	if q.Len() == 1 {
		close(t.ready)
	}
	return t, nil
}

// Ready is closed when t is at the head of its line.
func (t *Turn) Ready() <-chan struct{} { return t.ready }

// Leave takes t out of its line; when t was its head, the next waiter
// becomes the head. Leaving twice does nothing.
func (t *Turn) Leave() {
	l := t.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if t.left {
		return
	}
	t.left = true
	q := l.lines[t.key]
	head := q.Front() == t.el
	q.Remove(t.el)
	l.waiting--
	if q.Len() == 0 {
		delete(l.lines, t.key)
		return
	}
	if head {
		close(q.Front().Value.(*Turn).ready)
	}
}

// Len returns the number of waiters in key's line.
func (l *Lines) Len(key string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if q := l.lines[key]; q != nil {
		return q.Len()
	}
	return 0
}

// Await joins key's line and waits until the waiter is its head. It fails
// at once as Join does, or with ctx's error when ctx ends first (the
// waiter has then left the line). On success the Turn must be left when
// the waiter is done.
func (l *Lines) Await(ctx context.Context, key string) (*Turn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t, err := l.Join(key)
	if err != nil {
		return nil, err
	}
	select {
	case <-t.ready:
		return t, nil
	case <-ctx.Done():
		t.Leave()
		return nil, ctx.Err()
	}
}
