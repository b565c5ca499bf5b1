package core

import "errors"

// ErrInvalidConfig is wrapped by every error that reports an unusable
// algorithm, policy, limiter or store configuration.
var ErrInvalidConfig = errors.New("invalid rate limit configuration")

// ErrInvalidCost is returned when a request's cost is below 1.
var ErrInvalidCost = errors.New("cost must be at least 1")

// ErrNotTaken is returned by [Limiter.Refund] for a result that consumed
// nothing: a denial, a peek or a refund. Refunding it would mint capacity.
var ErrNotTaken = errors.New("result took nothing to refund")

// ErrClock is returned when a limiter's clock reads an instant before the
// Unix epoch or after 2189-03-16T23:50:27.641081855Z (2^63−1 − 2^61 ns
// since the epoch: an instant plus two of the longest spans a state holds,
// about 36 years each, must fit in an int64 of nanoseconds). Both bounds
// are instants a limiter still decides at.
var ErrClock = errors.New("clock outside 1970-01-01T00:00:00Z..2189-03-16T23:50:27.641081855Z")

// ErrRefunded is returned by [Limiter.Refund] for a decision already
// refunded (through any copy of its Result): a decision gives back what it
// took at most once, so the second refund changes nothing.
var ErrRefunded = errors.New("decision already refunded")

// ErrRefundForeign is returned by [Limiter.Refund] for a Result another
// limiter decided, or taken for another key: giving it back would credit
// what was never taken.
var ErrRefundForeign = errors.New("result was taken by another limiter or for another key")

// ErrRefundLedgerFull is returned by [Limiter.Refund] when the limiter's
// record of spent refunds is full: the refund is refused (the cost stays
// taken), so that no decision can be refunded twice.
var ErrRefundLedgerFull = errors.New("refund ledger full")

// ErrRefundExpired is returned by [Limiter.Refund] for a decision older
// than the limiter's refund window (see [WithRefundLedger]) that may still
// hold something: the refund is refused, the cost stays taken.
var ErrRefundExpired = errors.New("refund window passed")
