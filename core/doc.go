// Package core decides whether a request may pass a rate limit.
//
// It holds the algorithms ([GCRA], [TokenBucket], [LeakyBucket], [FixedWindow],
// [SlidingLog], [SlidingWindow], [Hybrid], [RollingWindow], [WarmUp]), the
// [Policy] that groups one or more named limits decided all-or-nothing, the
// [Result] of a decision, the [Store] interface that keeps per-key state, the
// bounded in-memory store ([MemoryStore]) and the [Limiter] that ties a policy,
// a store and a [Clock] together.
//
// Every algorithm is a plain value validated once, when a policy is built.
// Its step is a pure function of (state, now, cost): no locks, no I/O and no
// clock reads, so a store can apply it atomically however it likes.
//
// A refund ([Limiter.Refund]) gives a decision back at most once, whatever
// copies of its Result are refunded, and only as far as that very take
// still holds part of the limits' state: a late refund (after the state has
// drained, refilled, moved to a new window or been reset) gives nothing
// back, so refunds can never let a client past what the limits would allow
// had the refunded takes never happened.
//
// Time is kept as integer nanoseconds since the Unix epoch. Package core uses
// the standard library only and never imports net/http.
package core
