// Package inflight limits how many requests of each key may be in flight
// at once (a concurrency limit, like Stripe's concurrent-requests limiter
// or GitHub's secondary limits), where the rate algorithms of package core
// limit how many may start per unit of time.
//
// A request takes a [Slot] with Acquire before it starts and gives it back
// with [Slot.Release] when it ends. Acquire never waits: when every slot
// of the key is taken it fails at once with [ErrFull]. Wait waits, in a
// bounded first-come, first-served line per key, until a slot is free or
// its context ends.
//
// [Memory] keeps the slots of one process. Package
// github.com/floodgate-go/floodgate/core/inflight/redisinflight keeps them
// in Redis for a fleet, each slot a lease with a TTL so that the slots of
// a crashed process come back.
//
// # Release
//
// A Slot is released at most once: the first Release gives the slot back,
// every later one (through any copy of the *Slot, or of the struct it
// points to) fails with [ErrReleased] and changes nothing, so a double
// release never makes capacity that was not there. A slot that is never released is held
// forever by [Memory] (release it in a defer) and until its lease ends in
// Redis (renewals stop once the dropped Slot is garbage-collected).
package inflight
