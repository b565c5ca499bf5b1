// Package coretest holds what tests of floodgate's stores and algorithms
// share: a fake [Clock] and the conformance suite every [core.Store] must
// pass ([Run]).
package coretest

import (
	"sync/atomic"
	"time"
)

// Clock is a fake clock for tests: it stands still until told to move. It is
// safe for concurrent use. The zero Clock reads the Unix epoch.
type Clock struct {
	ns atomic.Int64
}

// NewClock returns a clock that reads t.
func NewClock(t time.Time) *Clock {
	c := &Clock{}
	c.Set(t)
	return c
}

// Now returns the clock's time.
func (c *Clock) Now() time.Time { return time.Unix(0, c.ns.Load()) }

// Set moves the clock to t, forwards or backwards.
func (c *Clock) Set(t time.Time) { c.ns.Store(t.UnixNano()) }

// Advance moves the clock forwards by d and returns the new time.
func (c *Clock) Advance(d time.Duration) time.Time { return time.Unix(0, c.ns.Add(int64(d))) }
