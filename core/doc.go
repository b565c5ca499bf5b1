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
// Time is kept as integer nanoseconds since the Unix epoch. Package core uses
// the standard library only and never imports net/http.
package core
