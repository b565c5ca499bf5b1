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
// Unix epoch or after early 2188, where state arithmetic could overflow.
var ErrClock = errors.New("clock outside 1970..2188")
