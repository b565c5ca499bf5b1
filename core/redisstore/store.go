// Package redisstore keeps floodgate limiter state in Redis, so that every
// process sharing a Redis (standalone, Sentinel or Cluster) enforces one
// limit together.
//
// # Decisions
//
// Each algorithm has its own Lua code (embedded from lua/*.lua), and a driver
// decides a request on every limit of a policy, named (algorithms and
// parameters) in the call's last argument, so a policy of several limits is
// decided in one script call, atomically, all or nothing, as the in-memory
// store decides it. On Redis 7 and later the script is a function library,
// loaded once (FUNCTION LOAD, on every master of a Cluster) and called with
// FCALL; on older Redis, on one that refuses FUNCTION LOAD, or with
// Options.NoFunctions, it is called with EVALSHA. A function or script
// missing from Redis (after a restart, FUNCTION FLUSH or SCRIPT FLUSH) is
// loaded again — FUNCTION LOAD, or EVAL — and the call retried once,
// invisibly. Every policy shares the one library (about 55 KB of source,
// loaded once per version of floodgate; EVAL and EVALSHA run a script of each
// policy's own, its limits constants, cached by Redis until SCRIPT FLUSH): a
// policy bound, reloaded with new limits, or made for one key's override
// costs Redis no load and no memory of its own but the library's few KB for
// the policy's functions, built at its first call and kept (for at least the
// last 512 policies called; one forgotten is built again at its next call, in
// some 30 µs). The library decides with the limits each call names, checked
// only against the store's bounds (state of bounded size): a Redis client
// allowed to call it can decide a key with limits of its own (lock it out,
// say), as one allowed to write the keys can; grant FCALL on it, with an ACL,
// to floodgate's clients only. A take alone is a call of the library's take
// function, which reads only the arguments it needs. Concurrent decisions are
// coalesced. When the client bounds its round trips by the context's deadline
// (ContextTimeoutEnabled, on a redis.Client or ClusterClient) and the link is
// fast, they are combined on the callers' goroutines: a decision made while
// fewer than Options.Pipelines combined round trips are in flight goes at
// once, alone; one made while that many are joins the batch waiting for the
// next turn, which its first caller sends as soon as a round trip in flight
// ends (so that the decisions arriving meanwhile go together), with no
// hand-off to a worker and back. Otherwise (another client, a slow link, the
// breaker's trial, a batch waiting that is full) one pipeline worker at a
// time collects them, and while other round trips are out it waits a little
// (half the measured round trip, at most a millisecond) for more. With FCALL
// the decisions of one policy in a round trip (of one hash slot, on a
// Cluster) are one call of the library's batch function, which decides them
// one after another, in order, exactly as one FCALL each would, reading each
// key at most twice and writing it at most twice (takes on Redis TIME of a
// policy of one GCRA or LeakyBucket limit read all their keys with one MGET
// and write each once); at most one FCALL (or EVALSHA) per decision, whatever
// the policy. A decision alone is one plain command, not a pipeline.
//
// Each limit of a (policy, key) is one Redis string key,
//
//	Prefix + "{" + hex(SHA-256(state format, policy shape, key))[:32] + "}:" + limit index
//
// so raw keys (IP addresses, API keys) never reach Redis, a policy whose
// state's shape changes (its name, its limits' names, algorithms, and the
// parameters core.Limiter.SetPolicy may not change) gets fresh state
// instead of misreading the old one (and so does a store whose state
// format changes), while one whose quotas, rates or bursts change keeps
// it: a process started after a reload counts on the keys of those that
// reloaded, one limit for the fleet. Limiters of one name and shape on one
// Redis count together, whatever their quotas. All keys of one
// (policy, key) share a hash tag: one Cluster slot, no CROSSSLOT. Its value
// is the limit's state words, the instant the state was created, the
// instant up to which its TTL runs and the instant of the decision that
// wrote it, as little-endian doubles (exact: every
// word is an integer below 2^53 or a float of TokenBucket or WarmUp). Every
// key gets a TTL that runs at least to the limit's recovery instant (its
// idleAt, rounded up to a millisecond, plus Options.ExpirySlack): no
// limiter key ever lives without a TTL, and a key that has recovered is
// deleted rather than written. A write keeps the key's TTL (SET KEEPTTL)
// while that covers the new state's recovery, and sets one otherwise
// (SET PX); for the limits whose recovery moves with every take (GCRA,
// LeakyBucket, TokenBucket, WarmUp, SlidingLog, Hybrid, Backoff), the new
// TTL runs past the recovery by an eighth of the span for a new key, and
// by the whole span for a key taken again while it lives, so that a busy
// key gets a new TTL now and then rather than at every take: a key may
// outlive its recovery by that much, harmlessly (a recovered key decides
// as a key never seen), and a key taken once by an eighth of its span at
// most. A refund also writes a marker key, with a TTL too (see Retries and
// refunds).
//
// # Time and units
//
// By default the scripts read Redis's TIME, so application servers' clock
// skew does not matter (Result.At reports Redis's instant). With
// Options.CallerClock the caller's Request.Now is used instead: for managed
// Redis services that forbid TIME in scripts, and for tests that drive a
// fake clock.
//
// Redis's TIME never reads earlier than a decision already made on the
// same server unless its clock went back: a failover or a slot migration
// to a server whose clock lags, or a clock stepped back (NTP). Every key
// records the instant of the last decision on TIME that wrote it (a write
// on the caller's clock keeps the one it read: a caller's clock ahead of
// TIME is no clock that went back); a decision on TIME
// that reads an earlier instant moves the key's state back by the
// difference and writes it, so that a clock an hour behind denies a
// used-up key as long as it would have been denied at that instant (at
// most its limit's period, or the period of the quotas it was written
// under), not the hour, and admits nothing beyond the limit. A state
// merely far ahead of now is never moved: limiters of one shape with
// larger bursts or locks (a reload, an override) legitimately write one.
// A refund on TIME measures its take's hold from the take's instant moved
// back with the state, and gives nothing back for a take made before a
// step a decision has settled since. On the caller's clock a lagging
// caller is decided at the key's latest instant.
//
// State is kept in integer microseconds (a Lua number is a double: Unix
// nanoseconds do not fit its 53 bits). Decisions are identical to the
// in-memory store's when every instant and every configured duration is a
// whole number of microseconds and the emission interval Period/Count of
// rate-based algorithms is too. Otherwise: instants are truncated to the
// microsecond; a rate's emission interval is rounded up to a whole
// microsecond (the rate granted is at most the one asked for, e.g.
// PerSecond(3) grants one unit per 333,334 µs instead of 333,333,334 ns);
// and windows and periods that are not whole microseconds are refused by
// Bind (an error wrapping core.ErrInvalidConfig). Configurations whose
// arithmetic would exceed 2^53 in microseconds (a SlidingWindow whose
// Quota × Window in µs does, say) are refused the same way. Instants are
// exact until about the year 2200.
//
// # Failures
//
// Every decision is answered within Options.Timeout (100 ms by default),
// queueing included, whatever the client's own timeouts: the store stops
// waiting at the deadline, while the round trip goes on in a bounded pool of
// pipeline workers (Options.Pipelines), each giving up after max(1 s, 4 ×
// Timeout) or sooner by the client's own timeouts. So that it does, whatever
// the client's timeouts (go-redis reads for 5 s by default, for ever with
// ReadTimeout −1, and bounds them by the context only with
// ContextTimeoutEnabled), the store sends with a clone of a redis.Client (a
// Sentinel failover client too) sharing its pool, with timeouts of that bound
// (Client.WithTimeout). A ClusterClient or Ring has no such clone: the store
// sends with a client of its own made from its options with timeouts of that
// bound (a Ring whose timeouts are within the bound, or that bounds its round
// trips by the context, is used as it is; a ClusterClient never is, so that
// the store can reach its nodes' idle connections without reloading the
// Cluster's state over them): its own connections (a pool per node, of the
// client's PoolSize), shared by the stores and limiters made on that client
// (redisinflight, localfirst) and closed by the last one's Close; everything
// is carried over (addresses, credentials, TLS, Dialer, OnConnect, routing)
// but the hooks added to the application's client (AddHook), which do not see
// the store's commands. Connections black-holed by a failover are thus given
// up, and the store is back on the Redis that answers on new ones, within
// about a second, not the client's ReadTimeout: a round trip that times out
// also makes the store PING every idle connection of the client's pools at
// once (of every node's, on a Cluster or Ring), so that those black-holed
// with it are given up together rather than one by one by the breaker's
// trials, each waiting the bound. A late round trip is not a lost one: its
// connection stays in the client's pool (a slow link warms up instead of
// redialling at every deadline), and its outcome still tells the circuit
// breaker whether Redis answers. A decision that missed its deadline may
// still have been applied in Redis (counted, never admitted by it).
//
// Faults are: Redis unreachable (connection refused or reset, a timeout, a
// missed deadline) and the error replies of a Redis that cannot write now
// — READONLY (a replica after a failover), OOM, LOADING, BUSY,
// CLUSTERDOWN, TRYAGAIN, MASTERDOWN, NOREPLICAS, MISCONF (a failed RDB
// save or AOF write: a full disk), and MOVED or ASK left
// after the Cluster client's own redirections (its MaxRedirects bounds
// them) or reaching a client that does not follow them. A decision meeting
// a fault is decided by Options.FailureMode — FailClosed returns an error
// wrapping [ErrUnavailable], FailOpen admits, FailLocal decides on an
// in-memory limiter granting this process its LocalShare of each limit.
// A refused or broken connection and most fault replies open the circuit
// breaker at once; a missed deadline, and the replies about one Cluster
// slot (TRYAGAIN: a slot being migrated, whose keys one call finds split
// between two nodes or new on the importing one; MOVED and ASK), are
// blips while Redis answers other round trips — a resharding fails the
// decisions that meet it, not the store — and otherwise
// Options.Failures of them in a row open it. Once open, decisions go to
// the failure mode without waiting for Redis. After a
// jittered wait (Options.ProbeInterval, doubling after each failed trial
// up to Options.ProbeMax, 800 ms by default) one decision — the trial —
// goes to Redis over the client's pool (no connection of its own); when a
// round trip sent since the opening succeeds the store is back on Redis
// (a late reply to one sent before does not count: it would make the
// breaker flap with every stalled reply), and a breaker that reopens
// within ProbeMax of closing waits twice as long as before, up to
// ProbeMax (a flaky link switches about once per ProbeMax/2 at most,
// whatever the rate of its faults). Every switch away and
// back is logged once (log/slog) and reported to Options.OnSwitch; Stats
// counts timeouts, faults and switches.
//
// NOSCRIPT (a function or script missing after a restart or a flush) is
// answered by loading it and retrying once. WRONGTYPE (a key of the
// store's Prefix holding another type: another application writing under
// the prefix) is not a fault of Redis but a misconfiguration: the decision
// fails with an error wrapping [ErrKeyConflict] (FailOpen admits it), the
// first occurrence is logged, and the other decisions carry on. Any other
// error reply is an error, never an admission unless the mode is FailOpen.
//
// # Retries and refunds
//
// go-redis sends a command again when it could not read its reply (a read
// timeout, a connection reset, TRYAGAIN or LOADING replies), up to
// MaxRetries more times, though the command may have run already. The
// store sends every decision as a command go-redis never sends again (a
// NoRetry command: ZeroCopyStringCmd, whose reply is read straight into
// the decision's own buffer), and a pipeline holding one is never sent
// again either, by a Cluster client too: Redis runs each decision at most
// once, whatever the client's MaxRetries. A decision whose reply is lost
// is a fault; it may have been applied (a take counted, never admitted by
// it). Beyond that:
//
//   - A refund gives back at most once, however many times Redis runs it
//     (a proxy between the two could send it again). Each refund is named
//     by its decision (store.Request.RefundID: a value random per Limiter
//     and the decision's number; a refund without one gets a random name
//     per call), and its script records the name in a marker key of the
//     same hash tag as the limit keys (same Cluster slot),
//     Prefix + "{…}:f" + 32 hex digits, with SET NX PX: a copy that
//     finds the marker gives nothing back. The marker lives as long as the refund could give
//     anything back (its remaining hold, rounded up to a millisecond), and
//     at least max(1 s, 4 × Timeout) plus Options.ExpirySlack. With
//     CallerClock a copy computes with the first one's instant, so a copy
//     held up past that bound could give back again: keep ExpirySlack above
//     the longest such delay.
//   - A refund gives nothing back to a limit state created after its take
//     (the key was reset, by any process, or evicted, and taken again
//     since): each state records the instant it was created, lowered by
//     any take with an earlier clock, and the refund compares it with the
//     take's instant. With Redis TIME this is exact; with CallerClock, a
//     caller whose clock lags the creator's by more than the time between
//     the take and the new state's creation can still give back into it.
//   - A peek changes nothing. A reset applied twice forgets the key twice:
//     a take made between the two copies is forgotten too (a reset's
//     marker makes a copy act once).
//
// # Start-up
//
// [Store.Check] verifies at start that Redis answers (an error wrapping
// [ErrUnavailable] otherwise), measures the round trip (an error wrapping
// [ErrTimeoutBelowRTT] when Timeout cannot cover it) and reads
// maxmemory-policy: any policy but noeviction may erase limits (every
// limiter key has a TTL, so volatile-* policies evict them as allkeys-*
// do), and is logged and reported by [Store.Stats].
//
// The store logs once per change of state, never per decision. go-redis
// logs its failed dials itself (to the logger the application sets with
// redis.SetLogger, which a library must not change): with the breaker
// open, the store dials at most once per trial, so an outage costs a
// burst of about the client's pool sizes in such lines, then about one a
// second (go-redis's own dial back-off).
//
// # Deny cache
//
// A key denied until t is answered locally until t, without a Redis call;
// see [Options].DenyCacheSize for when that is exact.
package redisstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/circuit"
	"github.com/floodgate-go/floodgate/internal/isnil"
	"github.com/floodgate-go/floodgate/internal/redisbound"
	"github.com/floodgate-go/floodgate/internal/redischeck"
	"github.com/redis/go-redis/v9"
)

// ErrUnavailable is wrapped by the errors of decisions that could not reach
// Redis (in FailClosed mode, or FailLocal for operations it cannot serve).
var ErrUnavailable = errors.New("redisstore: redis unavailable")

// ErrKeyConflict is wrapped by the errors of decisions whose Redis key
// holds a value of another type (WRONGTYPE): something else writes under
// the store's Prefix.
var ErrKeyConflict = errors.New("redisstore: a key of the store holds another type (WRONGTYPE)")

// ErrTimeoutBelowRTT is wrapped by [Store.Check]'s error when the round
// trip to Redis is not shorter than Options.Timeout: every decision would
// miss its deadline.
var ErrTimeoutBelowRTT = errors.New("redisstore: Options.Timeout is not above the round trip to Redis")

// FailureMode is what a store does while Redis cannot be reached.
type FailureMode uint8

const (
	// FailClosed returns an error wrapping [ErrUnavailable]: the caller
	// decides (an HTTP middleware answers 503). The default.
	FailClosed FailureMode = iota
	// FailOpen admits every request, reporting each limit's full quota
	// as remaining; the Result is not refundable. It also admits requests
	// on which Redis reported an error.
	FailOpen
	// FailLocal decides on an in-memory limiter of the policy scaled to
	// Options.LocalShare of each limit (see [ScalePolicy]), kept across
	// outages (what it admitted counts until it recovers by itself), so that
	// this process grants at most its share over any window of the limits,
	// however often the store switches. Every take Redis admits is charged to
	// it too, as far as the share holds it, so that an outage grants the
	// share less what this process admitted in Redis meanwhile; a reset Redis
	// makes forgets the key there too, but a refund is not given back locally
	// (an outage may deny a key whose takes Redis refunded, at most for the
	// window of its limits). What it admitted is not charged to Redis: once
	// Redis answers again, a window that began during the outage may grant
	// this process its share plus the limit. Its Results report the policy's
	// own quotas (what the headers show) and the local limiter's Remaining
	// and RetryAfter; they are not refundable, so a take asked under
	// core.WithMaxDelay that it would admit with a longer delay takes nothing
	// (the limiter decides it as a denial).
	FailLocal
)

// String returns the mode's name.
func (m FailureMode) String() string {
	switch m {
	case FailClosed:
		return "fail-closed"
	case FailOpen:
		return "fail-open"
	case FailLocal:
		return "local"
	}
	return fmt.Sprintf("FailureMode(%d)", uint8(m))
}

// Switch reports a change of the store's state: Down is true when the
// store stopped using Redis (Err says why) and false when it is back.
type Switch struct {
	Down bool
	Mode FailureMode
	Err  error
	At   time.Time
}

// Options configures a [Store]. The zero Options is usable.
type Options struct {
	// Prefix starts every Redis key; "" means "floodgate:". It may not
	// hold '{' or '}' (the keys' hash tags are the store's own).
	Prefix string
	// Timeout bounds every decision, queueing included; 0 means 100 ms
	// (a cross-zone round trip of 20–40 ms with room to spare). It must be
	// above the round trip to Redis (see [Store.Check]) and at most an
	// hour.
	Timeout time.Duration
	// CallerClock makes the scripts use Request.Now (the limiter's clock)
	// instead of Redis TIME.
	CallerClock bool
	// FailureMode is what happens while Redis is unreachable.
	FailureMode FailureMode
	// LocalShare is, for FailLocal, the part of each limit this process
	// grants on its own, in (0, 1]: 1/N for N processes sharing the
	// limit, 1 for a single process. FailLocal requires it: left 0, each
	// of N processes would grant the whole limit while Redis is down (N
	// times the limit), so [New] refuses it. Other modes ignore it.
	LocalShare float64
	// Failures is how many consecutive faults open the circuit breaker; 0
	// means 3.
	Failures int
	// ProbeInterval is how long the open breaker waits before its first
	// trial (jittered to between half of it and all of it); 0 means
	// 100 ms.
	ProbeInterval time.Duration
	// ProbeMax bounds the wait, which doubles after each failed trial; 0
	// means 800 ms, or ProbeInterval when that is longer. The store is
	// back on Redis at most ProbeMax plus a round trip after Redis
	// answers again.
	ProbeMax time.Duration
	// OnSwitch, when set, is called (synchronously, keep it short) on
	// every switch away from Redis and back. A panic of it is recovered
	// and logged: it may be called on the store's own goroutines.
	OnSwitch func(Switch)
	// Observer, when set, is told (synchronously, keep it short) of every
	// change of the store's state, once per change: Redis unreachable and
	// back (core.StoreUnreachable, core.StoreReachable: the failure mode
	// on and off), a slow link and its end, the first key conflict, the
	// first decision failing with an error reply (core.StoreErrorReply),
	// an evicting Redis seen by Check, and Close (core.StoreClosed, the
	// last change told). A panic of its StoreChanged is
	// recovered and logged, as for OnSwitch. Give it to the limiters too
	// (core.WithObserver) to see their decisions: those the deny cache
	// answers are marked core.SourceCache, those the failure mode decides
	// core.SourceFallback (see core.Result.Source).
	Observer core.Observer
	// Logger receives a line per switch, and one per other state change
	// (a slow link, a key conflict, an evicting Redis); nil means
	// slog.Default() at the time a line is logged (one set by
	// slog.SetDefault after New is followed).
	Logger *slog.Logger
	// DenyCacheSize bounds the denials each bound policy remembers
	// locally; 0 means 65,536 and a negative value disables the cache.
	//
	// A request of cost 1 on a key denied until t (a take or peek of cost
	// 1 whose RetryAfter was finite) is answered locally until t with the
	// same denial, RetryAfter and ResetAfter shortened by the time since.
	// This is exact for single-limit policies of every supported algorithm
	// whose denials change nothing (all but SlidingLog with CountRejected,
	// whose denials are logged): nothing of cost ≥ 1 passes before t, so
	// no take can change the state, Remaining is 0 throughout, and the
	// instants behind RetryAfter and ResetAfter stay put. It is not used
	// for policies of several limits, whose admitting limits report a
	// Remaining that grows with time. A Refund or Reset through this store
	// forgets the key's entry, and a denial received while one was out
	// (which Redis may have decided before it) is not remembered; one
	// made by another process is not seen, so this process may deny that
	// key until t (never admit wrongly). With
	// Redis TIME, t is measured from the reply's receipt (Redis decided
	// between the request's sending and then), so that a request the
	// cache answers, retried at the RetryAfter it is given, reaches Redis
	// after the instant Redis gave: the local answer may outlast Redis's
	// by up to the round trip, never fall short of it.
	DenyCacheSize int
	// ExpirySlack is added to every key's TTL; 0 means none. Keys then
	// outlive their recovery time, harmlessly (a recovered key decides as
	// a key never seen). Useful with CallerClock when the caller's clock
	// runs faster than Redis's (fake clocks in tests).
	ExpirySlack time.Duration
	// MaxBatch bounds the decisions one pipeline carries; 0 means 256,
	// and it may be at most 4,096.
	MaxBatch int
	// Pipelines is how many pipelines the workers may have in flight at
	// once, and how many combined round trips when decisions are combined
	// on the callers' goroutines (see the package doc); 0 means 8. It
	// bounds the round trips a stalled Redis can hold (one connection
	// each; the combined ones end at their decisions' deadline): decisions
	// beyond them wait, and every decision is answered by Timeout all the
	// same. It may be at most 1,024.
	Pipelines int
	// NoFunctions makes the store call its scripts with EVALSHA even on a
	// Redis that has functions (7.0 and later), where it otherwise loads
	// its function library once (FUNCTION LOAD) and calls it with FCALL,
	// which costs Redis a fraction of an EVALSHA.
	// The store switches to EVALSHA by itself when Redis refuses FUNCTION
	// LOAD.
	NoFunctions bool
}

// The bounds on Options.MaxBatch and Options.Pipelines: New allocates a
// queue of MaxBatch × Pipelines calls (32 MB at most) and starts Pipelines
// workers.
const (
	maxMaxBatch  = 4096
	maxPipelines = 1024
)

// Store is a [core.Store] keeping state in Redis. It is safe for
// concurrent use; Close stops its goroutines.
type Store struct {
	client    redis.UniversalClient
	bounded   *redisbound.Bound // client's: Release, Flush
	cluster   bool              // calls coalesced into one script call must share a slot
	ring      *redis.Ring       // a Ring's: calls coalesced into one script call must share a shard
	opts      Options
	log       *slog.Logger  // nil: slog.Default() at each line (see logger)
	ioTimeout time.Duration // a round trip's own bound, past the decision's
	instance  uint64        // tells the store from the others of the process, for observers (see core.StoreEvent)

	queue chan *call
	quit  chan struct{}
	wg    sync.WaitGroup

	// Batching (see gather): one worker collects at a time.
	collect    sync.Mutex
	inflight   atomic.Int32  // round trips sent by the workers and not yet ended
	lastSent   atomic.Int64  // nanotime of the last one sent
	roundEnded chan struct{} // a round trip ended (capacity 1)
	rttNs      atomic.Int64  // the measured round trip (see rttMeter)

	direct bool     // the client bounds round trips by ctx: see combine
	comb   combiner // direct's batches

	br          *circuit.Breaker
	down        atomic.Bool
	noFunctions atomic.Bool // EVALSHA instead of FCALL
	rtt         rttMeter
	stats       counters

	// mono is the local monotonic clock the tables read (nanotime; a
	// test's own): see table.cacheNow and table.charge.
	mono func() int64

	ctx    context.Context // the store's life: canceled by Close
	cancel context.CancelFunc

	mu     sync.Mutex
	closed bool
	gone   atomic.Bool // set by Close: no change is reported after core.StoreClosed
	bound  []*compiled // the scripts of the first policies bound, for Check

	preloaded atomic.Bool // the library is loaded, or being loaded, in the background (see preload)
}

// New returns a store deciding in the Redis that client reaches, and starts
// its pipeline workers. It does not contact Redis: see [Store.Check].
func New(client redis.UniversalClient, opts Options) (*Store, error) {
	if isnil.Value(client) {
		return nil, fmt.Errorf("redisstore: nil client (%T): %w", client, core.ErrInvalidConfig)
	}
	if opts.Prefix == "" {
		opts.Prefix = "floodgate:"
	}
	if err := redischeck.Prefix(opts.Prefix); err != nil {
		return nil, fmt.Errorf("redisstore: %w: %w", err, core.ErrInvalidConfig)
	}
	if opts.Timeout == 0 {
		opts.Timeout = 100 * time.Millisecond
	}
	if opts.LocalShare == 0 && opts.FailureMode == FailLocal {
		return nil, fmt.Errorf("redisstore: FailLocal needs LocalShare, the part of each limit this process grants while Redis is down (1/N for N processes; 1 for a single process): %w", core.ErrInvalidConfig)
	}
	if opts.LocalShare == 0 {
		opts.LocalShare = 1 // unused but by a FailLocal store
	}
	if opts.DenyCacheSize == 0 {
		opts.DenyCacheSize = 1 << 16
	}
	if opts.MaxBatch == 0 {
		opts.MaxBatch = 256
	}
	if opts.Pipelines == 0 {
		opts.Pipelines = 8
	}
	if err := circuit.Defaults(&opts.Failures, &opts.ProbeInterval, &opts.ProbeMax); err != nil {
		return nil, fmt.Errorf("redisstore: %w: %w", err, core.ErrInvalidConfig)
	}
	switch {
	case opts.Timeout < 0, opts.ExpirySlack < 0, opts.MaxBatch < 0, opts.Pipelines < 0:
		return nil, fmt.Errorf("redisstore: negative option: %w", core.ErrInvalidConfig)
	case opts.MaxBatch > maxMaxBatch, opts.Pipelines > maxPipelines:
		// New allocates a queue of MaxBatch × Pipelines calls, and a
		// batch of MaxBatch for each of Pipelines workers.
		return nil, fmt.Errorf("redisstore: MaxBatch %d (at most %d) or Pipelines %d (at most %d) too large: %w",
			opts.MaxBatch, maxMaxBatch, opts.Pipelines, maxPipelines, core.ErrInvalidConfig)
	case opts.Timeout > circuit.MaxProbe:
		// The bound on a Cluster's reads is 4 × Timeout (redisbound).
		return nil, fmt.Errorf("redisstore: Timeout %v above %v: %w", opts.Timeout, circuit.MaxProbe, core.ErrInvalidConfig)
	case !(opts.LocalShare > 0 && opts.LocalShare <= 1):
		return nil, fmt.Errorf("redisstore: LocalShare %v must be in (0, 1]: %w", opts.LocalShare, core.ErrInvalidConfig)
	case opts.FailureMode > FailLocal:
		return nil, fmt.Errorf("redisstore: %v: %w", opts.FailureMode, core.ErrInvalidConfig)
	case opts.Observer != nil && isnil.Value(opts.Observer):
		return nil, fmt.Errorf("redisstore: nil Observer %T: %w", opts.Observer, core.ErrInvalidConfig)
	}
	io := redisbound.RoundTrip(opts.Timeout)
	bound := redisbound.New(client, io)
	client = bound.Client
	s := &Store{
		instance:   instances.Add(1),
		client:     client,
		bounded:    bound,
		opts:       opts,
		log:        opts.Logger,
		ioTimeout:  io,
		queue:      make(chan *call, opts.MaxBatch*opts.Pipelines),
		quit:       make(chan struct{}),
		roundEnded: make(chan struct{}, 1),
		mono:       nanotime,
	}
	s.comb.turn = make(chan struct{}, 1)
	s.ctx, s.cancel = context.WithCancel(context.Background())
	_, s.cluster = client.(*redis.ClusterClient)
	s.ring, _ = client.(*redis.Ring)
	switch c := client.(type) {
	case *redis.Client:
		s.direct = c.Options().ContextTimeoutEnabled
	case *redis.ClusterClient:
		s.direct = c.Options().ContextTimeoutEnabled
	}
	s.br = s.newBreaker(nil)
	s.noFunctions.Store(opts.NoFunctions)
	for range opts.Pipelines {
		s.wg.Add(1)
		go s.worker()
	}
	return s, nil
}

// Close stops the store's goroutines; decisions after it fail. It does not
// close the application's client; it closes the client the store made of
// its own, if any (see Failures in the package doc) once no other store
// shares it. Round trips in flight end by their own deadline. It tells
// Options.Observer core.StoreClosed, and nothing after it, so that an
// outage the store reported does not outlive it in the observer.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.quit)
	s.cancel()
	s.mu.Unlock()
	s.wg.Wait()
	s.bounded.Release()
	s.gone.Store(true)
	s.notify(core.StoreClosed, nil)
	return nil
}

// Down reports whether the store is currently deciding without Redis (its
// circuit breaker is open or half-open).
func (s *Store) Down() bool { return s.down.Load() }

// switchDown is the breaker opening (under its lock): logged and reported
// once.
func (s *Store) switchDown(err error) {
	s.down.Store(true)
	s.stats.switches.Add(1)
	s.logger().Warn("redisstore: redis unreachable, switching", "mode", s.opts.FailureMode.String(), "err", err)
	s.notify(core.StoreUnreachable, err)
	s.onSwitch(Switch{Down: true, Mode: s.opts.FailureMode, Err: err, At: time.Now()})
}

// switchUp is the breaker closing (under its lock).
func (s *Store) switchUp() {
	s.down.Store(false)
	s.logger().Info("redisstore: redis reachable again, back to redis")
	s.notify(core.StoreReachable, nil)
	s.onSwitch(Switch{Down: false, Mode: s.opts.FailureMode, At: time.Now()})
}

// onSwitch tells Options.OnSwitch of sw, a panic of it recovered.
func (s *Store) onSwitch(sw Switch) {
	if s.opts.OnSwitch == nil {
		return
	}
	c := core.StoreReachable
	if sw.Down {
		c = core.StoreUnreachable
	}
	defer s.recoverHook("Options.OnSwitch", c)
	s.opts.OnSwitch(sw)
}

var _ core.Store = (*Store)(nil)

// newBreaker returns the store's circuit breaker, reading the clock now
// (nil: time.Now; a test's clock judges Options.Timeout's window without
// waiting it out).
func (s *Store) newBreaker(now func() time.Time) *circuit.Breaker {
	return circuit.New(circuit.Config{Failures: s.opts.Failures, Base: s.opts.ProbeInterval, Max: s.opts.ProbeMax, Window: s.opts.Timeout,
		Soft: soft, Now: now, OnOpen: s.switchDown, OnClose: s.switchUp})
}

// logger returns the store's Logger, or slog.Default() as it is now: a
// default read once by New would miss a slog.SetDefault made after it,
// and its lines would reach the new default through package log's bridge,
// at INFO whatever their level.
func (s *Store) logger() *slog.Logger {
	if s.log != nil {
		return s.log
	}
	return slog.Default()
}
