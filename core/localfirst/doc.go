// Package localfirst is a [core.Store] that decides in memory and syncs
// counts through Redis: seed 004's "converge → diverge → reconverge".
//
// Each process (a node) decides every request in memory, never waiting for Redis,
// on its view of each key's window counts: the merged count Redis returned
// at the last sync round, plus what the node admitted since. Every
// SyncPeriod ([Store.Run]; tests call [Store.Sync]) a round adds what the
// node admitted to each window's counter in Redis, reads the merged counts
// back and claims the node's share of what remains (see "Claims"), in the
// same script call, all pipelined in one round trip: on a single Redis
// (a *redis.Client: standalone or Sentinel) one EVALSHA per MaxBatch
// counters, on a Cluster or Ring one per bucket of keys (a hash tag, so
// every call's keys share a slot). A node thus sends at most
// ⌈counters/MaxBatch⌉ (or Buckets·⌈…⌉ on a Cluster) calls per round
// whatever its traffic, and each call runs two commands per counter
// (HGETALL, HSET; a PEXPIRE when it creates the counter); every counter
// has a TTL (its window's end,
// plus one window for a SlidingWindow, plus a slack), and keys are SHA-256
// digests, never raw keys.
//
// Only window counters are supported: [core.FixedWindow] (aligned to the
// epoch) and [core.SlidingWindow], in policies of any number of them. Their
// state is a count per window, and counts add up across nodes. See
// "Algorithms" below for the others.
//
// # Claims
//
// A node never spends a window's remainder alone. Each round, for every
// key it decided within Track rounds, a node registers in the current
// window's counter (a hash with a field per node) and claims, in the same
// script call and so atomically, its share of what remains:
//
//	claim = ⌊(room − total − the other nodes' live claims) / d⌋
//
// where room is the limit (for a SlidingWindow, less the previous window's
// weighted part), total the window's merged count, and d the nodes
// registered (at least this node's guess: the nodes registered in the
// previous window, or Options.Nodes without that evidence) that hold no
// live claim, itself included. A claim lives 2·SyncPeriod + Timeout (every
// node of a fleet must use the same SyncPeriod and Timeout, and clocks
// synchronised), and is replaced at the node's next round. The claims thus
// never add up beyond what remains, and until the next round a node admits
// only while
//
//	unconfirmed + cost ≤ its claim
//
// (unconfirmed: what it admitted since the round, less refunds; the claim
// recomputed at decision time, so a SlidingWindow's decaying previous
// window frees room). A denial by the claim alone has RetryAfter =
// SyncPeriod: the next round confirms what the node took and hands it a
// new claim. Nodes sharing a hot key whose sharers are known admit the
// limit and no more, whatever the order of their rounds
// (TestClaimsHoldTheLimit); a node alone in the previous window gets the
// whole remainder (a client pinned to one node gets the whole limit), one
// without history a share of it each round (TestLoneNodeGetsTheWholeLimit).
// A node that still decides a key now and then keeps a share of it for
// Track rounds: under-admission, never over-admission.
//
// Without a live claim — a window no round has read yet (a new window, a
// key new to the node, an evicted key), or a claim that expired — a node
// holds its unconfirmed units of the window to ⌊(room − confirmed total) /
// k⌋, with k the guess above when its view is fresh and at least
// Options.Nodes when it is stale (below).
//
// # Over-admission
//
// Over-admission comes only from decisions made without a live claim:
// each node's first units of a window before the first round that reads it
// (k = the nodes seen in the previous window: exact when they are the
// nodes deciding now, which TestFreshSharesFollowTheActiveNodes checks),
// and keys new to a node (⌊Limit/Nodes⌋ each, claimed against a total
// the node has not read). In the general form: let N be the nodes deciding
// a key, P the SyncPeriod, δ the spread of the nodes' round instants plus
// a round's duration ([Store.Run] aligns rounds to multiples of P, so with
// synchronised clocks δ is about the skew plus the round trip), and a(T)
// the most one node admits of a key in any interval T. A node's view lacks
// at most what the others admitted since their last push before its last
// read, so a window admits at most
//
//	Limit + (N − 1) · a(P + δ)
//
// and never more than N · Limit. A plain sync (no claims) has a = the
// node's whole admission rate times P + δ — for a hot key, N · Limit;
// with claims a counts only the units admitted without a live claim, at
// most ⌊Limit/k⌋ per node and window start, and 0 for the units within
// claims. TestOverAdmissionWithinBound checks the general bound on random
// steady and bursty schedules of four nodes; examples/localfirst measures
// four processes on one Redis.
//
// # Stale views and Redis outages
//
// A node's view of a key is stale when the last round did not read it
// back: the key is new to the node (or was evicted), the node last decided
// it more than Track rounds ago (it stops reading keys it no longer
// decides), the round's call failed (Redis down, a timeout), or no round
// ran for 2·P + Timeout (a stopped loop). A live claim is spent even
// through failed rounds (Redis reserved it); beyond it, on a stale view a
// node holds ⌊(room − confirmed total) / max(Nodes, sharers seen)⌋. So
// during an outage that starts with converged views the fleet admits at
// most the limit (the claims, then each node 1/Nodes of the remainder; a
// window starting during the outage gives each node ⌊Limit/Nodes⌋), and a
// flapping link cannot raise that: the share covers every unconfirmed
// unit, however many rounds failed. A node cut off alone while the others
// reach Redis may over-admit its share: the others reclaim its claim once
// it expires. This is the safe choice; its cost is that a limit below
// Nodes admits nothing on a stale view without a claim, and that a key a
// node sees rarely (less than once per Track rounds) starts each burst on
// that node at its share until the next round. Overstating Nodes only
// makes stale nodes stricter; understating it over-admits.
//
// When Redis is back, the next round pushes everything the node admitted
// (units of windows that no longer count too) and reads the merged counts:
// the fleet reconverges in one round (TestOutageHoldsSharesAndReconverges,
// through a proxy that refuses connections). A call whose reply was lost
// may have been applied; its units are pushed again (counted twice, which
// only denies more). Every round is bounded by Timeout; there is no
// circuit breaker, as rounds are already one per period.
//
// # Redis work
//
// A node's Redis work follows the keys it decides per round, not its
// decisions: every counter a round carries costs two commands (HGETALL,
// HSET; a PEXPIRE when it creates the counter) in a script call that
// carries up to MaxBatch of them. A hot key thus costs a node about three
// commands per round (one call, two commands) whatever its traffic, where
// the Redis store sends every admitted decision to Redis (its deny cache
// answers denials). Many keys that each see less than about one decision
// per node and round cost more than with the Redis store: each tracked key
// is read back every round for Track rounds after its last decision.
// [Options.SkipIdle] skips the keys nothing happened to on this node while
// their claims live; a smaller Track or a longer SyncPeriod cut the rest,
// at the costs described above. examples/localfirst measures both regimes.
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
//   - GCRA, TokenBucket (a token bucket is a GCRA: tokens = burst −
//     (TAT − now)/I): the state is a time, the theoretical arrival time
//     TAT, and a take of cost c at now is admitted when
//     max(TAT, now) + c·I − now ≤ burst·I, then TAT = max(TAT, now) + c·I.
//     The max is the obstacle: how much a unit advances TAT depends on
//     whether the bucket was full at that unit's own instant, which
//     depends on every other node's units before it. Pushing each node's
//     debt Σc·I and merging TAT = max(TAT, push instant) + debt charges
//     units from the push instant instead of their own (max is monotone,
//     so the merged TAT drifts above the true one, denying more, by up
//     to what a period refills per node), while between rounds each node
//     decides on a lagging TAT and over-admits up to (N − 1) bursts; and,
//     unlike a window whose remainder only changes when the window rolls,
//     the remainder refills continuously, so there is no fixed quantity
//     the claims could split. Syncing "admitted cost per
//     period against a shared budget" would make it a window counter,
//     with the window's boundary burst instead of GCRA's "at most burst
//     at once": a different algorithm (use FixedWindow or SlidingWindow
//     for that, which this store syncs). The sound route is a lease:
//     a node reserves L units in Redis (the GCRA step with cost L, at
//     Redis' clock), spends them locally within the lease's life λ, and
//     gives the unused ones back (TAT −= unused·I, bounded as refunds
//     are). The fleet then admits at most burst at once and at most
//     burst + ⌈rate·(T + λ)⌉ in any interval T (a unit is spent at most
//     λ after the GCRA admitted it), at one Redis call per lease instead
//     of per request; L must stay a fraction of burst (about burst/N), so
//     small bursts make leasing no cheaper than the Redis store. Not
//     implemented here: Bind refuses GCRA and TokenBucket (use the Redis
//     store, core/redisstore, for them).
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
