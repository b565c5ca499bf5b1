// Package localfirst is a [core.Store] that decides in memory and syncs
// counts through Redis: seed 004's "converge → diverge → reconverge".
//
// Each process (a node) decides every request in memory, at memory speed,
// on its view of each key's window counts: the merged count Redis returned
// at the last sync round, plus what the node admitted since. Every
// SyncPeriod ([Store.Run]; tests call [Store.Sync]) a round adds what the
// node admitted to each window's counter in Redis and reads the merged
// counts back in the same script call: one EVALSHA per bucket of keys (a
// hash tag: Cluster-safe), all pipelined in one round trip. A node thus
// sends at most Buckets commands per round whatever its traffic (with
// MaxBatch counters per call); every counter has a TTL (its window's end,
// plus one window for a SlidingWindow, plus a slack), and keys are SHA-256
// digests, never raw keys.
//
// Only window counters are supported: [core.FixedWindow] (aligned to the
// epoch) and [core.SlidingWindow], in policies of any number of them. Their
// state is a count per window, and counts add up across nodes. See
// "Algorithms" below for the others.
//
// # Shares
//
// A node never spends a window's remainder alone: it may hold at most
//
//	unconfirmed + cost ≤ ⌊(Limit − confirmed estimate) / k⌋
//
// units that no round has confirmed yet (admitted since the last round
// that read the key, less refunds), where the confirmed estimate is the
// window's merged count as last read (for a SlidingWindow, with the
// previous window's weighted part) and k the nodes it shares the key with:
//   - on a fresh view, the most nodes Redis saw admitting in the current or
//     the previous window, itself included (each counter keeps a field per
//     node) — 1 for a node that was alone in the previous window, so a
//     client pinned to one node gets the whole limit;
//   - Options.Nodes when no node was seen admitting in the previous window
//     (no evidence of how many share the key: a node pushing first in a
//     round would otherwise think itself alone), and when the view is
//     stale (below).
//
// A denial by the share alone has RetryAfter = SyncPeriod: the next round
// confirms what the node took and it claims a share of what is left. A
// node that shares a key with k − 1 others thus reaches its part of the
// limit in a few rounds, and when the nodes seen are the nodes deciding,
// nodes bursting together within one period admit the limit, not k times
// it (TestFreshSharesFollowTheActiveNodes).
//
// # Over-admission
//
// Let N be the number of nodes deciding a key, P the SyncPeriod, and δ the
// spread of the nodes' round instants plus a round's duration
// ([Store.Run] aligns rounds to multiples of P on each node's clock, so
// with synchronised clocks δ is about the clock skew plus the round trip;
// with arbitrary phases it is up to P). Let a(T) be the most one node
// admits of a key in any interval T. A node's view lacks at most what the
// other nodes admitted since their last push before its own last read, so
// in any window the fleet admits at most
//
//	Limit + (N − 1) · a(P + δ)
//
// and never more than N · Limit (a node never counts more than Limit in a
// window itself). The shares bound a: a node admits at most its share of
// the remainder per round, so a(P + δ) ≤ 2·⌈Limit/k⌉ while every round
// succeeds. Without shares (a plain sync) a is the node's whole admission
// rate times P + δ — under a steady load of R requests per second per key
// spread over the nodes, Limit + R·(1 − 1/N)·(P + δ), which for a hot key
// is N · Limit. With shares the excess comes from the nodes not yet seen
// (a node new to a key claims ⌊Limit/Nodes⌋ of a window it has not read)
// and from views read at different instants within a round.
// TestOverAdmissionWithinBound checks the bound on random steady and
// bursty schedules of four nodes; the measurement program
// (examples/localfirst) reports it for four processes on one Redis.
//
// # Stale views and Redis outages
//
// A node's view of a key is stale when the last round did not read it
// back: the key is new to the node (or was evicted), the node last decided
// it more than Track rounds ago (it stops reading keys it no longer
// decides), the round's call failed (Redis down, a timeout), or no round
// ran for 2·P + Timeout (a stopped loop). On a stale view k is at least
// Options.Nodes. So during an outage that starts with converged views the
// fleet admits at most the limit (each node 1/Nodes of the remainder; a
// window starting during the outage gives each node ⌊Limit/Nodes⌋), and a
// flapping link cannot raise that: the share covers every unconfirmed
// unit, however many rounds failed. This is the safe choice; its cost is
// that a limit below Nodes admits nothing on a stale view, and that a key
// a node sees rarely (less than once per Track rounds) starts each burst
// on that node at its share until the next round. Overstating Nodes only
// makes stale nodes stricter; understating it over-admits during outages.
//
// When Redis is back, the next round pushes everything the node admitted
// (units of windows that no longer count too) and reads the merged counts:
// the fleet reconverges in one round (TestOutageHoldsSharesAndReconverges,
// through a proxy that refuses connections). A call whose reply was lost
// may have been applied; its units are pushed again (counted twice, which
// only denies more). Every round is bounded by Timeout; there is no
// circuit breaker, as rounds are already one per period.
//
// # Decisions
//
// With one node (Nodes 1) every take, peek and refund is decided exactly
// as by the in-memory store (TestOneNodeDecidesAsMemory): Remaining,
// ResetAfter and RetryAfter included. A refund gives back from the
// node's view of the window the take was counted in and pushes a negative
// count at the next round. A reset deletes the key's counters in Redis at
// once (the one operation that waits for Redis, bounded by Timeout) and
// forgets the key on this node; the other nodes read the deleted counters
// at their next round, while units they admitted and had not pushed still
// count. Windows are aligned to each node's clock: keep the clocks
// synchronised (NTP), as a skew adds to δ.
//
// Each bound policy keeps at most MaxKeys keys in memory; when a shard is
// full a new key replaces an arbitrary one, whose unsynced units are still
// pushed and whose view, if it returns, is stale. A round visits every key
// held (a few ns each) and sends those decided within Track rounds.
//
// # Algorithms
//
// Syncing by counts needs a state that is a sum of per-request
// contributions, independent of their order, that a node can decide from
// a lagging total. The window counters are. The others are not, or not
// without a protocol of their own:
//   - GCRA, TokenBucket: the state is a time (the theoretical arrival
//     time) advanced by cost × interval from max(TAT, now). Nodes' advances
//     do add, so a node could push its "debt" and Redis apply
//     TAT = max(TAT, now) + debt; but the max makes the merge depend on when
//     each push arrives (a late push lands on a TAT that has moved on), so
//     merged states drift above the true one (deny more) and the bound
//     needs its own proof. Not implemented here.
//   - LeakyBucket: each admission's Delay is its place in one queue, which
//     a node cannot assign without the others' places.
//   - SlidingLog: the exact log is every timestamp, not a count; syncing
//     it means shipping every request.
//   - FixedWindow with Anchored: each key's window starts at its first
//     request, which nodes do not agree on.
//   - Hybrid, WarmUp, Backoff: modes, warm-up and lockouts switch on the
//     order of events, not on a total.
//   - RollingWindow: its per-period counters are sums and could be synced
//     like a SlidingWindow's; not implemented here.
//
// Use [Supports] to check a policy; Bind refuses the others with an error
// wrapping core.ErrInvalidConfig.
package localfirst
