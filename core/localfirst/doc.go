// Package localfirst is a [core.Store] that decides in memory and syncs
// through Redis: seed 004's "converge → diverge → reconverge".
//
// Each process (a node) decides every request in memory, never waiting for
// Redis, on its view of each key: what the last sync round read back,
// plus what the node admitted since. Every SyncPeriod ([Store.Run]; tests
// call [Store.Sync]) a round pushes what the node admitted, reads the
// merged state back and takes the node's part of what remains, all in
// script calls pipelined in one round trip (two when keys new to the node
// are synced: see "Memory"). Two kinds of limits are synced:
//
//   - window counters, [core.FixedWindow] (aligned to the epoch) and
//     [core.SlidingWindow]: a count per window, which adds up across
//     nodes; a node's part of a window is a claim (see "Windows");
//   - buckets, [core.GCRA] and [core.TokenBucket] whose burst refills
//     within a day: a shared state in Redis (GCRA's theoretical arrival
//     time, a token bucket's tokens), of which a node leases units (see
//     "Buckets").
//
// A policy may mix them. See "Algorithms" for the others.
//
// # Redis layout and work
//
// A bound policy's state is in one Redis hash per limit and window (for a
// bucket, per span of time: see "Buckets"), with a field per key: the
// first 16 bytes of a SHA-256 digest of the policy's shape and the key (no
// raw key reaches Redis), holding a MessagePack array. Every hash has a TTL
// (its window's end, plus one window for a SlidingWindow, or its span's
// end plus one span; plus a slack), which a round only lengthens (a node
// whose clock runs ahead of the others' cut it short of their windows: 4 s
// ahead, its hash of a window of 100 expired with 2 s of the others' window
// left, and a node then admitted 87 more in it:
// TestAttackSkewedNodeShortensWindowTTL), and expires whole. A round
// carries a key only when it has something to sync:
//
//   - units to push (or a lease to give back);
//   - a take denied since the last round (by the limit, a claim or a
//     share: the next round reads the key again, and for a bucket asks for
//     a lease);
//   - a round that pushed it last time (this one reads what the other
//     nodes pushed meanwhile, so that views agree two rounds after a push);
//   - a window no round has read yet of a limit the node used up its
//     share of (Limit/Nodes) in the previous window: a key hot on the node
//     gets its claim at the window's first round, before its first
//     decisions;
//   - a call for it that failed.
//
// A key nothing happens to costs nothing. A round sends one script call per
// MaxBatch items (an item: one key's window or bucket) on a single Redis
// (a *redis.Client: standalone or Sentinel), and on a Cluster or Ring one
// per hash tag (a policy's bucket of keys, Options.Buckets, so that every
// hash of a call shares a slot) and MaxBatch. A call costs at most four
// Redis commands per hash it touches (HMGET, HSET, PTTL, PEXPIRE), whatever
// the number of keys: a node's commands follow its rounds, not its keys or decisions.
// The work per key is in the script. examples/localfirst measures it: 10,000
// keys each decided about once a second per node cost ≥ 100× fewer
// commands than the Redis store, a hot key under its limit about 100×
// fewer.
//
// # Windows
//
// A node never spends a window's remainder alone. A round that reads a
// key registers the node in the current window and claims, in the same
// script and so atomically, its share of what remains:
//
//	claim = ⌊(room − total − the other nodes' live claims) / d⌋
//
// where room is the limit (for a SlidingWindow, less the previous window's
// weighted part), total the window's merged count, and d the nodes
// registered (at least this node's guess: the nodes registered in the
// previous window, or Options.Nodes without that evidence) that hold no
// live claim of a unit or more, itself included (a node whose claim came
// out 0 shares what remains: TestAttackIdleClaimLocksOutOtherNodes); the
// last units, fewer than d, go whole to the node claiming them. A claim
// lives 2·SyncPeriod + Timeout (every node of a fleet must use the same
// SyncPeriod and Timeout, and clocks synchronised), and is replaced when a
// round reads the key again. The claims never add up beyond what remains,
// and while its claim lives a node admits only while
//
//	unconfirmed + cost ≤ its claim
//
// (unconfirmed: what it admitted since the read, less refunds; the claim as
// made: the room a SlidingWindow's decaying previous window frees meanwhile
// goes to the next round's claims, as every node recomputing its own claim
// with all of it took it several times over; with Nodes 1 the claim is
// recomputed at decision time). A denial by the claim alone has RetryAfter =
// SyncPeriod: the next round confirms what the node took and hands it a new
// claim. Nodes sharing a hot key whose sharers are known admit the limit and
// no more, whatever the order of their rounds (TestClaimsHoldTheLimit); a
// node alone in the previous window gets the whole remainder (a client pinned
// to one node gets the whole limit), one without history a share of it each
// round (TestLoneNodeGetsTheWholeLimit).
//
// Without a live claim — a window no round has read yet (a new window, a
// key new to the node, an evicted key), or a claim that expired — a node
// holds its unconfirmed units of the window to ⌊(room − confirmed total) /
// k⌋, with k the most of Options.Nodes and the nodes it saw registered in
// the previous window or the current one. (Not the guess alone: nodes
// registering in one round each read the nodes registered before them, 1,
// 2, … N, and dividing by those counts the fleet's first units of the next
// window came to H(N)·Limit, 208 of 100 with four nodes:
// TestAttackLateJoinersFreshShares.) A node alone gets the whole remainder
// by its claims, from its first round in the window.
//
// Over-admission comes only from units admitted without a live claim:
// each node's first units of a window before the first round that reads it
// (⌊Limit/k⌋, k ≥ Nodes: at most Limit in all while N ≤ Nodes),
// keys new to a node (⌊Limit/Nodes⌋ each, claimed against a total the
// node has not read), and a quiet key's units on a view as old as its last
// read. Let N be the nodes deciding a key, P the SyncPeriod, δ the spread
// of the nodes' round instants plus a round's duration ([Store.Run] aligns
// rounds to multiples of P, so with synchronised clocks δ is about the
// skew plus the round trip), and a(T) the most one node admits of a key
// without a live claim in any interval T (at most ⌊Limit/k⌋ per node and
// window start; 0 for the units within claims). A window admits at most
//
//	Limit + (N − 1) · a(P + δ)
//
// and never more than N · Limit (a plain sync, without claims, has a = the
// node's whole admission rate over P + δ: for a hot key, N · Limit), plus
// what eviction may admit, which a flood of keys cannot raise (see
// "Memory").
// TestOverAdmissionWithinBound checks it on random steady and bursty
// schedules of four nodes; examples/localfirst measures four processes on
// one Redis.
//
// # Buckets
//
// A GCRA's or token bucket's state is shared in Redis, computed on the
// nodes' clocks (passed to the script: keep them synchronised): GCRA's TAT,
// a token bucket's tokens and the instant they were counted at (as the
// in-memory store keeps them, so that a changed limit reads them alike).
// Units are spent locally out of leases. A round that reads a key, in one
// script and so atomically:
//
//  1. gives back what the node's former leases left unspent, as far as
//     they still hold it (core's refund rule: what has refilled since is
//     not given back);
//  2. charges what the node admitted without a lease, in full even beyond
//     the bucket (up to a burst more: the fleet pays it back);
//  3. registers the node (a node that synced the key within ten periods,
//     or holds a live lease, shares it);
//  4. leases the node L units: with A the whole units the bucket holds and
//     d the sharers (at least the node's guess) without a live lease,
//     itself included, L = min(want, max(⌊A/d⌋, 1)) when A ≥ 1, where want
//     is all of that when a take was denied since the last round, twice
//     what the takes asked when they spent the lease, and nothing (no
//     lease) when the node's share served them. The lease is a take of L
//     from the shared state: GCRA's TAT moves L intervals on, the tokens
//     lose L.
//
// A lease lives λ = 2·SyncPeriod + Timeout; the next round that reads the
// key replaces it, and what it left is given back by the round after.
// While its lease lives, a node admits a take only when the lease holds its
// cost and the node's view (the shared state read, with what the node
// admitted since) admits it under the limit: a denial by the lease alone
// has RetryAfter = SyncPeriod. Without a live lease (a key new to the
// node, a lease expired through failed rounds, a key whose takes a share
// serves), the node spends its share: a bucket of 1/k of the burst and
// the rate (k = max(Options.Nodes, sharers)), set at each read to hold 1/k
// of what the view holds, and charged every unit the node admits (leased
// or not). A burst below k admits nothing without a lease.
//
// Leased units were admitted by the shared GCRA (or token bucket) when
// granted, at most λ before they are spent; a lease given back is a refund,
// which never lets a key past what it would have been allowed had the
// units not been leased. Units admitted without a lease are charged by the
// node's next round, at most ⌊B/k⌋ + ⌈rate·(P + δ)/k⌋ of them per node
// between two rounds (B the burst). So over any interval T a bucket key
// admits at most
//
//	B + ⌈rate · (T + λ + σ)⌉ + N · a,   a = ⌊B/k⌋ + ⌈rate·(P + δ)/k⌋
//
// (σ: the skew of the nodes' clocks): beyond the GCRA's own B + ⌈rate·T⌉,
// at most ⌈rate·λ⌉ once the leases flow (a lease's units spent up to λ
// after the GCRA admitted them), whatever the nodes and the lease sizes,
// and N·a more while nodes admit without a lease (a key's first units on
// each node, a quiet key). TestLeasesHoldTheRate and
// TestBucketOverAdmissionWithinBound check it on four nodes; the
// examples/localfirst measurement checks it on four processes.
//
// A bucket's state is written to the hash of the span of time the round
// runs in (a minute, an hour or a day: the shortest the bucket's refill
// time, Burst × interval, fits in) and read from that span's or the
// previous one's: it has refilled before it leaves them. Bind refuses
// buckets that refill in more than a day (use the Redis store for them).
//
// A single node (Nodes 1) decides every take, peek and refund of a bucket
// as the in-memory store does (a token bucket's RetryAfter and ResetAfter
// within a nanosecond) until its first round (TestBucketOneNodeDecidesAsMemory);
// afterwards out of its leases, which a round renews with the refill: one
// node alone admits the rate, with the refill of a period reaching it at
// the next round.
//
// # Stale views and Redis outages
//
// A node's view of a key is stale when the last round did not read it
// back: the key is new to the node (or was evicted), nothing happened to
// it since a round read it, the round's call failed (Redis down, a
// timeout), or no round ran for 2·P + Timeout (a stopped loop). A live
// claim or lease is spent even through failed rounds (Redis reserved it),
// and no longer than the first round that begins after its end, whatever
// the instant a decision read (a caller stalled between reading the clock
// and deciding: TestAttackStalledCallerSpendsExpiredClaim);
// beyond it, on a stale view a node holds a window's unconfirmed units to
// ⌊(room − confirmed total) / max(Nodes, sharers seen)⌋, and a bucket's to
// its share (1/k of the burst and the rate of what it last read). So during
// an outage that starts with converged views a window admits about the
// limit (the claims, then each node 1/Nodes of the remainder; a window
// starting during the outage gives each node ⌊Limit/Nodes⌋), a bucket the
// leases outstanding, then each node 1/k of what it last read and of the
// rate (TestBucketOutage); a flapping link cannot raise that, as the share
// covers every unit not yet pushed, however many rounds failed. A node cut
// off alone while the others reach Redis may over-admit its share: the
// others reclaim its claim or lease once it expires. This is the safe
// choice; its cost is that a limit below Nodes admits nothing on a stale
// view without a claim or lease. Overstating Nodes only makes stale nodes
// stricter; understating it over-admits.
//
// When Redis is back, the next round pushes everything the node admitted
// (units of windows that no longer count too) and the round after reads
// what the others pushed: the fleet reconverges in two rounds
// (TestOutageHoldsSharesAndReconverges, through a proxy that refuses
// connections). A bucket's units admitted through the outage are charged
// at that round, up to a burst beyond the bucket. A call whose reply was
// lost may have been applied: its units are pushed again (counted twice,
// which only denies more), and what it gave back (of a lease, or a
// window's refunds beyond what the node admitted since its last round) is
// not given back again: a refund so lost stays counted. The claim it made
// replaced the node's in Redis while the node spends the one it holds: a
// round never reserves for a node in Redis less than its live claim still
// holds once the round's push is counted, and the node spends the new
// claim once the reply is in (a claim the node does not spend shrinks at
// its next round: it is not kept whole while its node keeps reading the
// key). A Redis that restarts without persistence (or a failover to a
// replica that missed the latest writes) forgets every count, as it does
// for the Redis store: each key's window admits up to its limit again, a
// bucket its burst (two nodes: 100 more of a window of 100, and of a GCRA
// of burst 100, in the window they had used up), leases already granted
// are still spent, and the claims are made anew. Every round is bounded
// by Timeout; there is no circuit breaker, as rounds are already one per
// period.
//
// At start-up, [Store.Check] says whether the store can sync: Redis
// answers within Timeout, the sync script runs (an ACL may forbid it while
// PING passes) and the node's clock is within half a SyncPeriod of Redis's
// (a skewed clock adds to δ and σ above). A node that cannot sync still
// decides, on its shares: call Check to refuse to serve, or to log.
//
// # Decisions
//
// With one node (Nodes 1) every take, peek and refund of a window limit is
// decided exactly as by the in-memory store (TestOneNodeDecidesAsMemory):
// Remaining, ResetAfter and RetryAfter included. A refund gives back from
// the node's view (for a bucket, also from its share, and of what it has
// not pushed yet: units already pushed or leased stay counted in Redis,
// which only denies more) and pushes a negative count at the next round. A
// reset deletes the key's fields in Redis at once (the one operation that
// waits for Redis, bounded by Timeout) and forgets the key on this node;
// the other nodes read the deleted state at their next round that reads
// the key, while units they admitted and had not pushed still count, and
// their live leases are still spent. Windows are aligned to each node's
// clock: keep the clocks synchronised (NTP), as a skew adds to δ and σ.
// The rounds and the decisions must read one clock: Options.Clock given to
// the limiters too, or neither given one, when both read
// core.SystemClock, the wall clock at start-up plus the monotonic time
// since. (The rounds read time.Now's wall reading: after NTP stepped it
// back an hour, or a suspended machine's wall clock jumped on resume, a
// node's rounds and decisions disagreed by that much, and two nodes at 100
// a minute admitted 3,000 in 30 s: TestAttackDefaultClockIsTheLimitersClock.)
// That clock does not follow a step of the wall clock until the process
// restarts: a node whose clock was off when it started keeps that skew,
// which Check measures.
//
// # Memory
//
// A bound policy's keys are spread over S shards (64; fewer, down to 1,
// while MaxKeys/S < 16), each indexing at most per = max(1, ⌊MaxKeys/S⌋)
// keys. A full shard makes room for a new key as the in-memory store does:
// among the entries within 64 slots of the new key's, it evicts the one
// whose forgetting admits least — one with nothing to forget (windows and
// buckets recovered, nothing to push or give back, no live claim or lease)
// first, else the one whose view counts the fewest units not yet
// recovered, else the nearest to recovery. A flood of keys that each take
// a little never evicts a key that took more
// (TestAttackKeyFloodKeepsExhaustedLimit).
//
// An evicted entry that still counts or has units to push stays in the
// shard's limbo, at most max(1, ⌊per/4⌋) entries: the rounds push its
// units and give its lease back, and the key, if it returns, gets it back
// whole. A full limbo drops its cheapest entry by the same measure (units
// of windows that ended and of buckets that refilled count for nothing, so
// those first), whose unpushed units are lost, and notes the key: what it
// counted (the most units over its limits) until that recovers. A shard
// holds max(16, per) notes, the oldest dropped first into a summary (the
// most a dropped note counted, until the latest recovers). A forgotten key
// that returns decides as on a stale view whose confirmed count is its
// note (or the summary: any key new to the shard while the summary holds),
// until a round reads its count back; a forgotten bucket admits nothing
// until then (TestAttackForgottenKeyKeepsItsCount,
// TestAttackCostlyKeyFloodKeepsExhaustedLimit). The entry it returns to
// holds the note: a round that drops that entry (its key denied, then
// evicted again before a round read it) notes the key again (three keys
// taking turns on MaxKeys 1 through an outage: one admitted 15 of a window
// of 5 before: TestAttackReturnedKeyKeepsItsNote).
//
// So a bound policy holds at most S · (per + max(1, ⌊per/4⌋)) entries
// (1.25 · MaxKeys for MaxKeys ≥ 64) and S · max(16, per) notes (16 bytes
// and a map slot each), whatever the keys and however long Redis is
// unreachable, and a round carries at most those entries' items; a round
// visits every entry held, a few ns each, and sends those with something
// to sync (TestAttackOutageKeyFloodBoundsMemory: 10,000 keys through an
// outage on MaxKeys 64 hold 80 entries, and rounds of 80 items). A flood
// of new keys makes a round as long as its keys (50,000 take seconds of
// Redis's time): a round sends the calls of keys it has read back before
// first, in pipelines of their own, then those of keys new to the node,
// each pipeline of about 4,096 items at most, and sends no more once its
// Timeout has passed (what it did not send waits for the next round,
// whole). A pipeline cut part way fails every call of it (go-redis stamps
// its error on all), so a flood fails its own calls, not the known keys'
// (TestAttackKeyFloodFailsTheRoundOfKnownKeys), and a round holds Redis
// for about Timeout at most. What eviction may admit beyond the bounds
// above ("Windows", "Buckets"):
//
//   - the unpushed units of entries a limbo drops (at most each one's
//     count): only when more than max(1, ⌊per/4⌋) entries evicted from one
//     shard wait for a round at once (a Redis outage, or a flood of that
//     many new keys per shard and period), each the cheapest to forget;
//     this node holds the key to its note, the other nodes and this one
//     once a round has read it back do not count them;
//   - for a key forgotten twice before a round read it, the first time
//     without a note of its own (more than max(16, per) keys forgotten in
//     its shard in between), at most the summary's count.
//
// Neither happens to a flood of keys that each take less than the key it
// would evict, nor, with Redis reachable, while fewer than max(1,
// ⌊per/4⌋) new keys per shard and period evict entries with units to
// push: a key forgotten then is admitted no more than had it been kept.
//
// # Limits that change while serving
//
// [core.Limiter.SetPolicy] works on this store as on the others (the
// tables implement [core.Rebinder]): nobody's count is reset, and each
// limit reads the state kept under its new parameters as the in-memory
// store does (windows keep their counts, GCRA its TAT, a token bucket its
// tokens capped at a lowered burst); core's conformance checks run on it
// (TestPolicyChange, and TestOverrides for per-key policies). Across the
// fleet, every node changes on its own SetPolicy (a configuration reload
// on each): a claim made under other limits holds the node to the claim as
// made until its next round (a raised limit is not handed whole to every
// node holding a claim), and a lease granted under other limits is cut to
// the node's share of the new burst, the rest given back; so a change
// admits no more than the new limit's burst (TestSetPolicyWindowsAcrossNodes,
// TestSetPolicyBucketsAcrossNodes). The Redis keys follow the policy's
// shape (its name, the limits' names, kinds and windows, the span a
// bucket's refill time fits in), not its quotas, rates and bursts, so
// nodes part way through a change share their counts. A change of the
// shape is refused with core.ErrPolicyChange; a limiter bound anew with it
// (core.Overrides does, for an override whose change SetPolicy refuses)
// counts afresh on keys of its own.
//
// Limiters of one policy name and shape count in the same Redis fields,
// whatever their quotas, as on the Redis store (two routes behind
// middleware.PerIP, both named "per-ip", count together). On one store they
// decide on one keyset: the node is one decider of the key, as the bounds
// above count it, with one claim or lease, and the rounds sync with the
// limits of the latest table bound or rebound. A table of other limits
// (another quota) decides as on a stale view, without the claims, which
// are sized for the latest limits' room: spent as its cap, they held a
// 100/h route to the 10 of a 10/h one bound after it, and deducted, a
// 100/h route's claims denied a 10/h one whatever its count
// (TestAttackSharedKeysetTightRouteCapsLooseOne,
// TestAttackSharedKeysetLooseClaimsDenyTightRoute). A bucket's units are
// pushed in the latest limits' units, each table's charged at its own
// interval (pushed one for one, a 10/min route's units were charged at a
// 100/min route's 0.6 s: 173 admitted in a minute, not 20;
// TestAttackSharedBucketChargedAtOtherRate), the part of a unit a take
// starts charged whole and the rest prepaid for the next takes, so that
// Redis never counts less than a node admitted (carried uncharged, a node
// held up to a unit no view, share or lease saw: two nodes admitted 191 in
// ten seconds, bound about 135;
// TestAttackSharedBucketCoarseLatestUnitUncharged). So a node may be
// charged up to one latest unit more than it admitted: beside a route
// whose unit is a large part of its burst (1/min burst 1 beside 60/min
// burst 60), a route is denied well below its rate (a client at 24/min on
// two nodes, 22 of 24 requests denied). A take asks for leases
// in those units, and a lease granted under other limits than the latest is
// cut, whichever table spends it, to the node's share of the latest burst
// (a route spending its lease in the units of another's limits, made the
// latest by a SetPolicy, admitted 90 at once of a bucket of 60:
// TestAttackSharedBucketLeaseSpentInOtherUnits). (Each on a keyset of its own,
// before, each admitted a node's part before its first round and replaced
// the other's claim in Redis while both were spent: two such limiters on
// two nodes admitted 250 of a window of 100, past the bound of 150:
// TestAttackSameShapeLimitersShareOneDecider.) Name policies of other
// limits apart.
//
// A table no limiter uses any more (a limiter dropped; a shadow limit,
// which SetPolicy binds anew at each change) is held weakly: once it is
// collected, the next round evicts its keys (pushing their units, giving
// their leases back) and the round after the one that pushed its last
// units releases it, and rounds no longer visit it
// (TestAttackReloadLoopReleasesTables: 1000 changes of a shadow limit leave
// the two tables in use; TestUnusedTableKeptUntilPushed). Through an
// outage an unused table keeps what it has to push, within the bound of
// "Memory".
//
// # Algorithms
//
// A window's state is a sum of per-request counts, independent of their
// order, that a node can decide from a lagging total and a claim; a
// bucket's is one value that a Redis-side take can lease out in units. The
// others cannot be synced either way:
//   - LeakyBucket: each admission's Delay is its place in one queue, which
//     a node cannot assign without the others' places; a lease of units
//     would admit without the delays.
//   - SlidingLog: the exact log is every timestamp, not a count; syncing
//     it means shipping every request.
//   - FixedWindow with Anchored: each key's window starts at its first
//     request, which nodes do not agree on.
//   - Hybrid, WarmUp, Backoff: modes, warm-up and lockouts switch on the
//     order of events, not on a total or a level.
//   - RollingWindow: its per-period counters are sums and could be synced
//     like a SlidingWindow's; not implemented here.
//   - GCRA and TokenBucket whose burst refills in more than a day: their
//     state would outlive the spans it is kept in.
//
// Use [Supports] to check a policy; Bind refuses the others with an error
// wrapping core.ErrInvalidConfig. Use the Redis store (core/redisstore)
// for them.
package localfirst
