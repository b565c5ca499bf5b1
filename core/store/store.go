// Package store is for the authors of a core.Store: it holds what a
// core.Limiter asks of the [Table] a store binds to a policy (a [Request])
// and what the table answers (a [Decision]: one [Outcome] per limit). Users
// of floodgate never need it: they choose a store with core.WithStore, and
// read decisions as core.Result values.
//
// Package core's in-memory store and package redisstore implement it; the
// conformance suite in package coretest runs against any of them.
package store

import (
	"context"
	"time"
)

// MaxLimits is the most limits one policy may hold (core.MaxLimits).
const MaxLimits = 4

// Op is what a [Request] asks of a table.
type Op uint8

// The operations a table performs.
const (
	// OpTake consumes Cost if every limit admits it.
	OpTake Op = iota
	// OpPeek reports what OpTake would decide, changing nothing.
	OpPeek
	// OpRefund gives back Cost taken at the instant Taken, as far as the
	// take still holds it (see Request.Holds).
	OpRefund
	// OpReset forgets the key.
	OpReset
)

// Request is one operation on one key of a bound policy.
type Request struct {
	Op   Op
	Key  string
	Cost int64
	// Now is the caller's clock in Unix nanoseconds. A store may use its
	// own clock instead (the Redis store uses Redis's by default).
	Now int64
	// Taken is, for OpRefund, the instant the refunded cost was taken.
	Taken int64
	// Holds is, for OpRefund, each limit's hold (in policy order): how long
	// after Taken the take still held part of that limit's state. A limit
	// gives nothing back from Taken+Holds[i] on, and never more than the
	// take still holds.
	Holds [MaxLimits]int64
	// RefundID names, for OpRefund, the decision refunded: a Limiter sets
	// it to a value of its own, random per Limiter, and the decision's
	// number, so that ids of different limiters and processes do not
	// collide. A store that may execute one request twice (a Redis client
	// retrying a command whose reply it did not read) gives back at most
	// once per id; the zero id names nothing.
	RefundID [2]uint64
}

// Outcome is one limit's verdict: what core.LimitResult reports of it.
type Outcome struct {
	Allowed    bool
	Remaining  int64
	ResetAfter time.Duration
	RetryAfter time.Duration
	Delay      time.Duration
	// Hold is, for an admitted take, how long after the decision the take
	// still holds part of the limit's state (a refund gives nothing back
	// from then on); 0 means ResetAfter.
	Hold time.Duration
}

// Decision is a table's answer to a [Request].
type Decision struct {
	// Taken reports whether the cost was consumed: an admitted OpTake.
	// Only a decision that took something may be refunded.
	Taken bool
	// At is the instant decided at, in Unix nanoseconds: Request.Now, or
	// the store's own clock when it reads one.
	At int64
	// Outcomes holds each limit's verdict, in policy order.
	Outcomes [MaxLimits]Outcome
	// Source says what decided: the store itself (the zero value), a
	// local cache of it, or its failure mode.
	Source Source
}

// Source says what decided a [Decision] (core.Result.Source reports it).
type Source uint8

const (
	// SourceStore is the store itself (the zero Source).
	SourceStore Source = iota
	// SourceCache is a local cache of the store, answering without a
	// round trip (the Redis store's deny cache).
	SourceCache
	// SourceFallback is the store's failure mode deciding while the store
	// could not be reached (admitting, or a local limiter).
	SourceFallback
)

// String returns "store", "cache" or "fallback".
func (s Source) String() string {
	switch s {
	case SourceStore:
		return "store"
	case SourceCache:
		return "cache"
	case SourceFallback:
		return "fallback"
	}
	return "unknown"
}

// Table applies requests to the per-key state of one policy. It must be
// safe for concurrent use and apply each request atomically.
type Table interface {
	// Do applies req and returns the decision. For OpRefund it returns
	// what a peek of cost 1 reports afterwards; for OpReset, the zero
	// Decision.
	Do(ctx context.Context, req Request) (Decision, error)
}

// Idler is implemented by a Table that keeps per-key state in the process
// beyond what a new Table of the same policy finds in its store (the
// local-first store's views, unpushed units and notes of forgotten keys;
// the Redis store's FailLocal limiter).
// Idle reports whether every key behaves at now (the caller's clock in
// Unix nanoseconds, as Request.Now) as one the Table never saw, so that
// the Table can be dropped for a new one of its policy without starting
// any key afresh: core.Overrides forgets an unused override policy only
// when it does. A Table that does not implement it keeps nothing a new
// one of its policy would not find.
type Idler interface {
	Idle(now int64) bool
}
