package coretest

import (
	"context"
	"slices"
	"sync"

	"github.com/floodgate-go/floodgate/core"
)

// Observer is a [core.Observer] that records what it is told, for tests.
// It is safe for concurrent use.
type Observer struct {
	mu        sync.Mutex
	decisions []core.Decision
	events    []core.StoreEvent
}

// Decided records d.
func (o *Observer) Decided(_ context.Context, d core.Decision) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.decisions = append(o.decisions, d)
}

// StoreChanged records e.
func (o *Observer) StoreChanged(e core.StoreEvent) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.events = append(o.events, e)
}

// Decisions returns the decisions recorded so far, in order.
func (o *Observer) Decisions() []core.Decision {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.decisions)
}

// Events returns the store events recorded so far, in order.
func (o *Observer) Events() []core.StoreEvent {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.events)
}
