package core

import "context"

// Op is what a [Request] asks of a store.
type Op uint8

// The operations a store performs.
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
	// RefundID names, for OpRefund, the decision refunded: a [Limiter]
	// sets it to a value of its own, random per Limiter, and the
	// decision's number, so that ids of different limiters and processes
	// do not collide. A store that may execute one request twice (a Redis
	// client retrying a command whose reply it did not read) gives back at
	// most once per id; the zero id names nothing.
	RefundID [2]uint64

	// epoch is, for OpRefund, the in-memory shard's eviction epoch the
	// refunded take read: the in-memory store tells by it whether the take
	// was made before its key was evicted.
	epoch uint64
}

// Store keeps the per-key state of policies. Implementations must be safe
// for concurrent use and apply each request atomically.
type Store interface {
	// Bind prepares the store to decide for p and returns the table that
	// does. Each call returns an independent table.
	Bind(p *Policy) (Table, error)
}

// Table applies requests to the per-key state of one policy.
type Table interface {
	// Do applies req atomically and returns the decision. For OpRefund it
	// returns what a peek of cost 1 reports afterwards; for OpReset, the
	// zero Result.
	Do(ctx context.Context, req Request) (Result, error)
}
