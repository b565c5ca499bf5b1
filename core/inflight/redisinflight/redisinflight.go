// Package redisinflight keeps concurrency slots (see package inflight) in
// Redis, so that every process sharing a Redis (standalone, Sentinel or
// Cluster) enforces one limit of requests in flight per key.
//
// # Leases
//
// Each slot is a lease: a member of a sorted set per key and limit scored
// by the instant its lease ends,
//
//	Prefix + "c{" + hex(SHA-256(key))[:32] + "}:" + limit
//
// (one Redis key, so one Cluster slot; raw keys never reach Redis). The
// limit is in the name so that limiters enforcing different limits on one
// Redis under one Prefix (per-route concurrency policies) count apart, as
// two inflight.Memory would, while the processes of a fleet configured
// alike share one set. Limiters of the same limit and Prefix do share
// their sets: give limiters that must count apart (two routes of the same
// limit) different Prefixes. A limit changed in a rolling deploy names a
// new set: until the last process of the old limit is gone, the old and
// the new processes each count their own requests, so a key may have up
// to the old limit plus the new one in flight. Acquire runs one script that, atomically, drops the leases that
// have ended, counts the live ones, and adds a lease of Options.Lease if
// fewer than the limit are live; the set's TTL runs to its last lease's
// end, so no key outlives its leases. Time is Redis's TIME (no skew
// between application servers) unless Options.Clock is set. Release
// removes the lease (ZREM): releasing twice, or a release that go-redis
// sends again, removes nothing more. A process that crashes, or loses its
// connection, without releasing holds its slots until their leases end:
// they come back at most Options.Lease after they were taken or last
// renewed.
//
// A held slot is renewed every third of its lease, so that a request
// running longer than Options.Lease (a slow one: a client can slow its
// own requests) keeps its slot until it is released; a slot dropped
// unreleased (a caller's bug) stops being renewed once it is
// garbage-collected, and its lease then ends by itself. With
// Options.ManualRenew only [inflight.Slot.Renew] renews a slot: a request
// that runs longer than its lease then loses its slot, which another
// request may take. A renewal of a lease
// that has ended fails with [ErrLeaseLost] and does not revive it; a
// renewal never moves a lease's end back (with Options.Clock, one that
// read the clock before another but reaches Redis after it). With
// Options.Clock a lease has ended as of the renewal's reading: one read
// before the end that reaches Redis after it extends the lease unless an
// Acquire of the key ran meanwhile, which drops the ended leases before
// counting: no slot given to another is ever revived. On Redis TIME (no
// Options.Clock), a lease ending more than its own Lease after now, which
// only a clock that went back makes (a failover to a server whose clock
// lags, a clock stepped back), is brought back to now + its Lease by the
// next Acquire or renewal of its key: a slot whose holder died is held a
// Lease at most after such a step, not as long as the clock went back. A
// lease of a longer Lease than the Acquire's (limiters of one Prefix and
// limit share a key's leases: a reload, ManualRenew) keeps its end. Each
// lease's member in Redis names its Lease (128 random bits in hex, ".",
// the Lease in µs).
//
// # Failures
//
// Every call is bounded by Options.Timeout (100 ms by default) whatever
// the client's own timeouts. A call that cannot reach Redis, or gets an
// error reply, is decided by Options.FailureMode, as in package
// redisstore: FailClosed returns an error wrapping
// redisstore.ErrUnavailable (the middleware answers 503), FailOpen grants
// a slot that holds nothing, FailLocal takes the slot from an in-memory
// limiter of this process granting ⌈limit × LocalShare⌉ slots per key,
// less the slots of the key this process holds in Redis or may be taking
// there (its Acquires of the key on their way, such as those that filled
// MaxCalls; a slot dropped unreleased, a caller's bug, counts until it is
// garbage-collected, local slots too); back on Redis,
// an Acquire gets a lease only within the limit less the local slots of
// the key this process still holds. So across a switch, either way, this
// process holds no more slots of a key than it would on either side
// alone (with LocalShare 1, the limit).
//
// A call that misses its deadline returns then, but its round trip goes
// on in a goroutine until the client gives up: within max(1 s,
// 4 × Timeout), whatever the client's timeouts, as in package redisstore
// (a redis.Client is used through a clone with timeouts of that bound,
// sharing its pool; a ClusterClient or Ring through a client of
// floodgate's own made from its options, which [Limiter.Close] releases),
// so that connections black-holed by a failover give their calls back
// within about a second; a round trip that times out makes the limiter
// PING every idle connection at once, so that those black-holed with it
// are given up together, not one per breaker trial. At most Options.MaxCalls
// Acquires' round trips (4 × the client's pool size by default) are
// outstanding at once: beyond that, while Redis stalls, an Acquire is
// decided by the failure mode at once, with no goroutine and no wait, so
// that a flood during a stall costs neither memory nor latency. The
// releases and renewals of slots held have MaxCalls round trips of their
// own, so that Acquires in flight (a client's flood on a Redis that
// answers) never keep a slot's release from Redis; the waiting heads'
// polls have Options.MaxPolls (see Waiting).
//
// An Acquire that returns without a slot while its script may yet take a
// lease (its caller's context ended, its deadline passed, its connection
// failed after the script was sent, or after an earlier attempt of a
// client that retries was: with go-redis's MaxRetries, any fault) leaves
// no lease held by nobody: once
// its round trip ends, the round trip's goroutine (within its MaxCalls
// token: no goroutine more) removes the lease if the late reply says it
// was taken, or if the outcome is unknown, and leaves the lease's
// tombstone, Prefix + "x{" + hash + "}:" + member, for a Lease, so that
// the script, should it reach Redis later still, takes nothing. Under
// FailOpen and FailLocal such a request is then counted once, not in
// Redis as well. While the breaker is open, or when that cancellation
// cannot reach Redis within a round trip's bound, such a lease is
// remembered as a release that did not reach Redis (see below): this
// process's next Acquire of the key that reaches Redis removes it and
// leaves its tombstone; otherwise it ends by its TTL, at most
// Options.Lease after the script ran.
//
// A circuit breaker, the one of package redisstore, keeps a Redis that
// is down from costing every call: Options.Failures missed deadlines in
// a row (or one refused connection or fault reply) open it, and calls
// are then decided by the failure mode at once, without the network.
// After a jittered wait (between half and all of Options.ProbeInterval,
// doubling after each failed trial up to Options.ProbeMax) one call, the
// trial, goes to Redis over the client's pool; its answer closes the
// breaker. The limiter is back on Redis at most ProbeMax plus a round
// trip after Redis answers again.
//
// A call that gets an error reply that is not a fault (NOPERM: an ACL
// forbidding the scripts or a command of theirs; see package redisstore
// for the faults) fails, or is granted a slot that holds nothing under
// FailOpen, never a local slot: Redis answers. The first is logged
// (Options.Logger). [Limiter.Check] at start-up reports it, as it reports
// a Redis unreachable or too slow for Options.Timeout and warns about a
// maxmemory-policy that may evict the leases.
//
// A release is sent whether its context has ended or not (the request's
// context of a client that hung up), within Options.Timeout. A release
// that cannot reach Redis (the breaker open, MaxCalls releases
// and renewals outstanding, a fault) returns its error; the lease is
// remembered (up to 1,024 leases per limiter, at most 512 of them the
// abandoned Acquires' above, so that a flood as an outage starts leaves
// room for the releases; beyond, the oldest lease of the key least
// recently released or Acquired is forgotten, so that a client leaving
// the many slots it held as an outage starts gives up its own keys'
// leases, not those of the keys others come back to), and this process's next
// Acquire of the key that reaches Redis removes it in its script, before
// counting, so that a key whose requests ended during an outage is free
// again once Redis answers; otherwise the lease ends by itself, at most
// Options.Lease after it was taken or last renewed. The slot is
// released once whatever happens (a second Release returns
// inflight.ErrReleased), so it is never counted twice. A ZREM that
// arrives late removes the lease, never another.
//
// # Waiting
//
// [Limiter.Wait] queues the callers of one process per key, first come,
// first served, as [inflight.Memory.Wait] does; only the line's head asks
// Redis: first as an Acquire does, again when this process releases a
// slot of the key (on a token of MaxCalls), and otherwise every
// Options.PollInterval (or sooner, when the first lease of the key ends
// before), taking turns with the heads of the other lines, first come,
// first served: at most Options.MaxPolls polls per PollInterval, on
// round trips of their own. So waiters, an attacker's one on each of the
// many keys it fills, never take the tokens that Acquires need, and load
// Redis no more however many keys they wait on: with more heads than
// MaxPolls, each polls less often. A poll that finds its round trips
// spent is not decided by the failure mode: the head waits on. When
// every line is full (Options.MaxWaiting), a key nobody waits for is
// tried as an Acquire is, without a place in line: waiters of other
// keys, a flood's, never refuse a key a free slot. Across
// processes there is no order: each process's head competes with the
// others' and with every Acquire for the slots that free.
package redisinflight

import (
	"cmp"
	"container/list"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/inflight"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/circuit"
	"github.com/floodgate-go/floodgate/internal/isnil"
	"github.com/floodgate-go/floodgate/internal/redisbound"
	"github.com/floodgate-go/floodgate/internal/redischeck"
	"github.com/floodgate-go/floodgate/internal/waitline"
	"github.com/redis/go-redis/v9"
)

// maxLease bounds Options.Lease: a lease's end in microseconds since 1970,
// a score in Lua's doubles, stays below 2^53 (exact) for centuries.
const maxLease = 365 * 24 * time.Hour

// renewable is the shortest Options.Lease, in Timeouts, that the renewal
// of held slots accepts: a renewal that misses its deadline is tried
// again while a try can still reach Redis before the lease ends, 2 ×
// Timeout before it (see Limiter.retryAfter); below 6 × Timeout the one
// of Lease/3 left no room for that (TestNewRefusesLeaseTooShortToRenew).
const renewable = 6

// minPollInterval is the shortest Options.PollInterval.
const minPollInterval = time.Millisecond

// ErrLeaseLost is returned by [inflight.Slot.Renew] when the slot's lease
// had already ended: the slot may be another request's by now.
var ErrLeaseLost = errors.New("redisinflight: lease already ended")

// Options configures a [Limiter]. The zero Options is usable.
type Options struct {
	// Prefix starts every Redis key; "" means "floodgate:". Limiters of
	// one Prefix and one limit share their counts (see the package
	// documentation): give limiters that must count apart different
	// Prefixes. It may not hold '{' or '}' (the keys' hash tags are
	// the limiter's own).
	Prefix string
	// Lease is how long a slot is held without a release or renewal; 0
	// means 30 s. It must be a whole number of milliseconds, at least 1
	// and at most a year (8,760 h: the scripts' scores, microseconds in
	// Lua's doubles, stay exact), and, unless ManualRenew is set, at
	// least 6 × Timeout (600 ms with the default Timeout), so that a
	// renewal that misses its deadline can be tried again in time.
	Lease time.Duration
	// ManualRenew turns off the renewal of held slots. By default every
	// held slot is renewed each Lease/3 (a timer per slot, no goroutine),
	// so that a slot is lost only when its process stops (or its limiter
	// is closed: see Limiter.Close), or Redis stays unreachable until its
	// lease is about to end: a renewal that fails is tried again halfway
	// to the last instant one can still reach Redis in time (the lease's
	// end, as this process reckons it, less 2 × Timeout, or less Lease/3
	// when that is shorter: hence Lease's 6 × Timeout), and no sooner
	// than Lease/64 (1 ms at least) after the last try, so a few tries,
	// never later than that instant. A lease lost (the renewal
	// found it ended, or that instant passed) is told to OnError with an
	// error wrapping [ErrLeaseLost], and renewals stop. The cost is a
	// timer per held slot and, in Redis, one script per held slot per
	// Lease/3.
	//
	// With ManualRenew a slot is held for Lease after it was taken or last
	// renewed by [inflight.Slot.Renew], and no longer: a request running
	// longer loses its slot, silently, to another request, and a client
	// that can slow its own requests (a slow upload, a slow read of the
	// answer) walks past the limit. Set it only where every request ends
	// well within Lease (a server's write timeout below it) or renews its
	// slot itself.
	ManualRenew bool
	// Timeout bounds every call to Redis; 0 means 100 ms. It must be at
	// most an hour.
	Timeout time.Duration
	// Clock, when set, is read instead of Redis TIME (managed Redis that
	// forbids TIME in scripts; tests with a fake clock). Every process
	// sharing the limit must then read comparable clocks.
	Clock core.Clock
	// FailureMode is what Acquire does when Redis cannot decide (see the
	// package documentation); the default is redisstore.FailClosed.
	FailureMode redisstore.FailureMode
	// LocalShare is, for FailLocal, the part of the limit this process
	// grants on its own, in (0, 1]: 1/N for N processes sharing the
	// limit, 1 for a single process. FailLocal requires it: left 0, each
	// of N processes would hold the whole limit while Redis is down (N
	// times the limit), so [New] refuses it. Other modes ignore it.
	LocalShare float64
	// MaxWaiters bounds the callers of one key waiting in Wait, MaxWaiting
	// those of all keys; 0 means inflight.DefaultMaxWaiters and
	// inflight.DefaultMaxWaiting.
	MaxWaiters, MaxWaiting int
	// PollInterval is how often the head of a key's wait line asks Redis
	// for a slot freed by another process; 0 means 50 ms. It is at least
	// 1 ms (minPollInterval): a shorter one would have every waiting head
	// poll, or retry a spent poll budget, in a busy loop.
	PollInterval time.Duration
	// MaxPolls bounds the heads of the wait lines polling Redis: at most
	// MaxPolls polls in each PollInterval, taken in turn by the heads of
	// every line, and as many round trips outstanding, apart from
	// MaxCalls' (see Limiter.Wait); 0 means max(1, MaxCalls / 16). More
	// heads than that each poll less often, not more.
	MaxPolls int
	// MaxCalls bounds the Acquires' round trips to Redis outstanding at
	// once (a round trip that missed its deadline counts until the client
	// gives up, and then, for an Acquire whose caller got no slot, until
	// its lease is cancelled: see the package documentation), and apart
	// the releases' and renewals' (the polls of Wait have MaxPolls);
	// beyond it calls are decided by the failure mode at once. 0
	// means 4 × the client's pool size (its Options().PoolSize, or
	// go-redis's default of 10 per GOMAXPROCS for other clients): the
	// pool's connections busy and a short queue for each, so that a burst
	// on a healthy Redis waits for a connection rather than failing, and
	// a stall holds at most that many goroutines.
	MaxCalls int
	// Failures is how many consecutive missed deadlines open the circuit
	// breaker; 0 means 3. It must be at most 2,147,483,647.
	Failures int
	// ProbeInterval is how long the open breaker waits before its first
	// trial (jittered to between half of it and all of it); 0 means
	// 100 ms.
	ProbeInterval time.Duration
	// ProbeMax bounds the wait, which doubles after each failed trial; 0
	// means 800 ms, or ProbeInterval when that is longer. It must be at
	// most an hour.
	ProbeMax time.Duration
	// OnError, when set, is told of every Redis error met (synchronously,
	// keep it short), including those the failure mode answers; not of
	// the calls decided without Redis (breaker open, MaxCalls reached),
	// so that a flood cannot flood it. It may be called on the limiter's
	// own goroutines (a renewal's, a cancellation's): a panic of it is
	// recovered and logged.
	OnError func(error)
	// Logger receives a line for the first call failing with an error
	// reply that is not a fault, Check's warnings and a panic of OnError;
	// nil means slog.Default() at the time a line is logged.
	Logger *slog.Logger
}

// Limiter is a concurrency limiter in Redis: at most Limit leases of each
// key are live at once, over every process sharing the Redis. It is safe
// for concurrent use.
type Limiter struct {
	client  redis.UniversalClient
	bound   *redisbound.Bound // client's: Release, FlushSoon
	limit   int
	keyEnd  string // ends every lease set's name: ":" + limit
	opts    Options
	leaseUS int64
	local   *inflight.Memory // FailLocal's limiter
	line    *waitline.Lines
	calls   chan struct{} // a token per outstanding Acquire's round trip
	polls   chan struct{} // a token per outstanding waiting head's poll
	// turns are the waiting heads' turns to poll, each held from before
	// its poll until the pause after it ends (see Limiter.Wait).
	turns   *turns
	upkeep  chan struct{} // a token per outstanding release or renewal (see call)
	br      *circuit.Breaker
	errBusy error
	// renewAfter schedules the automatic renewals: afterFunc, or a test's
	// hook that runs them when the test says.
	renewAfter func(time.Duration, func()) renewTimer
	clock      func() time.Time // Options.Clock's Now, or time.Now
	// resends is whether the client may send a command again after an
	// attempt that may have reached Redis (see orphaned).
	resends bool
	// localStep, a test's hook when not nil, runs in fallback at each
	// step of an Acquire's local slot (see step).
	localStep func(ctx context.Context, step string)
	// pollShed, a test's hook when not nil, runs when a waiting head's
	// try finds its tokens spent.
	pollShed func()

	log         *slog.Logger           // nil: slog.Default() at each line (see logger)
	closed      atomic.Bool            // Close was called: held slots are no longer renewed
	cancelled   atomic.Int64           // abandoned Acquires' leases cancelled (see Limiter.cancel)
	otherLogged atomic.Bool            // the first error reply that is not a fault was logged
	policy      atomic.Pointer[string] // maxmemory-policy, as Check read it

	mu    sync.Mutex
	freed map[string]chan struct{} // keys whose line's head waits for a local release
	// held counts, under FailLocal, the slots of each key this process
	// holds in Redis (taken and not yet released) or may be taking (its
	// Acquires on their way), which the local limiter's share must leave
	// room for (see takeLocal).
	held map[string]int
	// lost holds, per lease set, the leases whose release did not reach
	// Redis, lostN their number (see unreleasedLease); lostUse orders
	// their sets by use, lostTombUse those with a tombstone (see
	// lostSet).
	lost                 map[string]*lostSet
	lostN                int
	lostUse, lostTombUse list.List
	// lostTombs is those of them with a tombstone (see lost).
	lostTombs int
	// lostAny is lostN > 0, read without l.mu: an Acquire finding no
	// lease remembered takes no lock for them (a lease remembered while it
	// reads is removed by the key's next Acquire).
	lostAny atomic.Bool
	// lostEnds is the remembered leases by when each has surely ended:
	// a full table drops those ended without looking at the others.
	lostEnds lostHeap
	// lostVisited counts the leases looked at to keep the table (a
	// measure for tests).
	lostVisited int
}

var (
	acquireScript = redis.NewScript(acquireLua)
	renewScript   = redis.NewScript(renewLua)
	cancelScript  = redis.NewScript(cancelLua)
)

//go:embed lua/acquire.lua
var acquireLua string

//go:embed lua/cancel.lua
var cancelLua string

//go:embed lua/renew.lua
var renewLua string

// New returns a limiter of limit slots per key in the Redis that client
// reaches. It does not contact Redis. It refuses a nil client, a limit
// below 1 and bad options with an error wrapping core.ErrInvalidConfig.
func New(client redis.UniversalClient, limit int, opts Options) (*Limiter, error) {
	if isnil.Value(client) {
		return nil, fmt.Errorf("redisinflight: nil client (%T): %w", client, core.ErrInvalidConfig)
	}
	if limit < 1 {
		return nil, fmt.Errorf("redisinflight: limit %d below 1: %w", limit, core.ErrInvalidConfig)
	}
	if opts.Prefix == "" {
		opts.Prefix = "floodgate:"
	}
	if err := redischeck.Prefix(opts.Prefix); err != nil {
		return nil, fmt.Errorf("redisinflight: %w: %w", err, core.ErrInvalidConfig)
	}
	if opts.Lease == 0 {
		opts.Lease = 30 * time.Second
	}
	if opts.Timeout == 0 {
		opts.Timeout = 100 * time.Millisecond
	}
	if opts.LocalShare == 0 && opts.FailureMode == redisstore.FailLocal {
		return nil, fmt.Errorf("redisinflight: FailLocal needs LocalShare, the part of the limit this process holds while Redis is down (1/N for N processes; 1 for a single process): %w", core.ErrInvalidConfig)
	}
	if opts.LocalShare == 0 {
		opts.LocalShare = 1 // unused but under FailLocal
	}
	if opts.PollInterval == 0 {
		opts.PollInterval = 50 * time.Millisecond
	}
	if opts.MaxCalls == 0 {
		opts.MaxCalls = 4 * min(poolSize(client), math.MaxInt/4)
	}
	if opts.MaxPolls == 0 {
		opts.MaxPolls = max(1, opts.MaxCalls/16)
	}
	if err := circuit.Defaults(&opts.Failures, &opts.ProbeInterval, &opts.ProbeMax); err != nil {
		return nil, fmt.Errorf("redisinflight: %w: %w", err, core.ErrInvalidConfig)
	}
	switch {
	case opts.Lease < time.Millisecond || opts.Lease%time.Millisecond != 0 || opts.Lease > maxLease:
		return nil, fmt.Errorf("redisinflight: Lease %v is not a whole number of milliseconds in [1 ms, %v]: %w", opts.Lease, maxLease, core.ErrInvalidConfig)
	case opts.Timeout > circuit.MaxProbe:
		// (ProbeMax and Failures are bounded by circuit.Defaults.)
		return nil, fmt.Errorf("redisinflight: Timeout %v above %v: %w", opts.Timeout, circuit.MaxProbe, core.ErrInvalidConfig)
	case opts.PollInterval < minPollInterval:
		return nil, fmt.Errorf("redisinflight: PollInterval %v below %v would have waiting callers poll Redis in a busy loop: %w", opts.PollInterval, minPollInterval, core.ErrInvalidConfig)
	case opts.Timeout < 0, opts.MaxWaiters < 0, opts.MaxWaiting < 0, opts.MaxCalls < 0, opts.MaxPolls < 0:
		return nil, fmt.Errorf("redisinflight: negative option: %w", core.ErrInvalidConfig)
	case !opts.ManualRenew && opts.Lease < renewable*opts.Timeout:
		return nil, fmt.Errorf("redisinflight: Lease %v below %d × Timeout (%v): a renewal that misses its deadline could not be tried again before the lease ends (raise Lease, lower Timeout, or set ManualRenew): %w",
			opts.Lease, renewable, opts.Timeout, core.ErrInvalidConfig)
	case !(opts.LocalShare > 0 && opts.LocalShare <= 1):
		return nil, fmt.Errorf("redisinflight: LocalShare %v must be in (0, 1]: %w", opts.LocalShare, core.ErrInvalidConfig)
	case opts.FailureMode > redisstore.FailLocal:
		return nil, fmt.Errorf("redisinflight: %v: %w", opts.FailureMode, core.ErrInvalidConfig)
	case opts.Clock != nil && isnil.Value(opts.Clock):
		return nil, fmt.Errorf("redisinflight: nil Clock %T: %w", opts.Clock, core.ErrInvalidConfig)
	}
	// Round trips end within max(1 s, 4 × Timeout) whatever the client's
	// options, so that black-holed connections give their calls' tokens
	// back (see redisbound).
	bound := redisbound.New(client, redisbound.RoundTrip(opts.Timeout))
	l := &Limiter{client: bound.Client, bound: bound, limit: limit, keyEnd: ":" + strconv.Itoa(limit), log: opts.Logger, opts: opts, leaseUS: int64(opts.Lease / time.Microsecond),
		line:  waitline.New(cmp.Or(opts.MaxWaiters, inflight.DefaultMaxWaiters), cmp.Or(opts.MaxWaiting, inflight.DefaultMaxWaiting), inflight.ErrQueueFull),
		freed: make(map[string]chan struct{}), lost: make(map[string]*lostSet), calls: make(chan struct{}, opts.MaxCalls), polls: make(chan struct{}, opts.MaxPolls), turns: &turns{free: opts.MaxPolls}, upkeep: make(chan struct{}, opts.MaxCalls), renewAfter: afterFunc,
		errBusy: fmt.Errorf("redisinflight: %d calls to Redis outstanding: %w", opts.MaxCalls, errShed)}
	l.clock, l.resends = time.Now, mayResend(l.client)
	if opts.Clock != nil {
		l.clock = opts.Clock.Now
	}
	l.br = circuit.New(circuit.Config{Failures: opts.Failures, Base: opts.ProbeInterval, Max: opts.ProbeMax,
		Window: opts.Timeout, Soft: soft, Now: l.clock})
	if opts.FailureMode == redisstore.FailLocal {
		share := limit // ⌈limit × LocalShare⌉, which float64 → int would wrap for a limit near math.MaxInt
		if f := math.Ceil(float64(limit) * opts.LocalShare); f < float64(limit) {
			share = max(1, int(f))
		}
		local, err := inflight.NewMemory(share, inflight.MemoryOptions{})
		if err != nil {
			return nil, err
		}
		l.local, l.held = local, make(map[string]int)
	}
	// A limiter dropped without Close releases its client all the same.
	runtime.AddCleanup(l, func(b *redisbound.Bound) { b.Release() }, bound)
	return l, nil
}

// Close releases the client the limiter made of its own for a
// ClusterClient or Ring (see the package documentation), once no other
// limiter or store shares it; it never closes the application's client.
// Acquires and waits after Close go to the failure mode without Redis
// (TestAttackClosedLimiterTakesNoUnrenewedSlot), whatever the client; the
// releases of the slots held are still sent (through the limiter's own
// client, closed, they fail: those leases end by themselves). It ends the
// renewals of the slots still held (hijacked connections, which
// http.Server.Shutdown does not wait for) or taken as it runs: a renewal due after Close sends
// nothing and reports nothing, and such a slot's lease ends by itself
// within Options.Lease, as a stopped process's do
// (TestCloseStopsRenewals). Close a limiter once the requests holding
// its slots have ended, and use it no more. It returns nil.
func (l *Limiter) Close() error {
	if l.zero() {
		return nil
	}
	l.closed.Store(true)
	l.bound.Release()
	return nil
}

// poolSize is the connections client's pool holds at most.
func poolSize(client redis.UniversalClient) int {
	n := 0
	switch c := client.(type) {
	case *redis.Client:
		n = c.Options().PoolSize
	case *redis.ClusterClient:
		n = c.Options().PoolSize
	case *redis.Ring:
		n = c.Options().PoolSize
	}
	if n <= 0 {
		n = 10 * runtime.GOMAXPROCS(0)
	}
	return n
}

// Limit returns the slots each key may hold at once (0 for a nil or zero
// Limiter, not made by New).
func (l *Limiter) Limit() int {
	if l.zero() {
		return 0
	}
	return l.limit
}

// errZeroLimiter is returned by the calls of a nil or zero Limiter.
var errZeroLimiter = fmt.Errorf("redisinflight: nil or zero Limiter (make it with New): %w", core.ErrInvalidConfig)

// zero reports whether l is nil or zero, not made by New.
func (l *Limiter) zero() bool { return l == nil || l.line == nil }

// logger returns the limiter's Logger, or slog.Default() as it is now (see
// Options.Logger).
func (l *Limiter) logger() *slog.Logger {
	if l.log != nil {
		return l.log
	}
	return slog.Default()
}
