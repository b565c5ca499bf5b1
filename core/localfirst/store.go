package localfirst

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/store"
	"github.com/floodgate-go/floodgate/internal/isnil"
	"github.com/floodgate-go/floodgate/internal/redisbound"
	"github.com/floodgate-go/floodgate/internal/redischeck"
	"github.com/redis/go-redis/v9"
)

// Bounds and defaults of [Options].
const (
	// DefaultSyncPeriod is the SyncPeriod of Options that leave it 0.
	DefaultSyncPeriod = 100 * time.Millisecond
	// MinSyncPeriod and MaxSyncPeriod bound SyncPeriod.
	MinSyncPeriod = 10 * time.Millisecond
	MaxSyncPeriod = time.Minute
	// DefaultTimeout is the Timeout of Options that leave it 0.
	DefaultTimeout = 500 * time.Millisecond
	// MaxTimeout bounds Timeout.
	MaxTimeout = 10 * time.Second
	// DefaultBuckets is the Buckets of Options that leave it 0.
	DefaultBuckets = 16
	// DefaultMaxBatch is the MaxBatch of Options that leave it 0.
	DefaultMaxBatch = 512
	// MaxNodes bounds Nodes.
	MaxNodes = 1 << 16
)

// Options configures a [Store].
type Options struct {
	// Nodes is how many processes share the limits through this Redis:
	// required, in [1, MaxNodes]. A node without a live claim on a window
	// (a window's first units, a key new to it, a Redis outage) or a live
	// lease of a bucket holds at most 1/Nodes of what it knows remains (of
	// a bucket, 1/Nodes of its burst and rate too; less when it saw more
	// nodes share the key); see the package documentation. Overstating it is safe
	// (such a node grants less); understating it over-admits.
	Nodes int
	// SyncPeriod is the time between two sync rounds of [Store.Run], in
	// [MinSyncPeriod, MaxSyncPeriod]; 0 means DefaultSyncPeriod.
	SyncPeriod time.Duration
	// Timeout bounds one sync round, in (0, MaxTimeout]; 0 means
	// DefaultTimeout. It is the round's context deadline, and the read
	// and write timeout of the client the store sends with, whatever the
	// client's own timeouts, so that a round on a connection a failover
	// black-holed ends: a clone of a redis.Client sharing its pool, or for
	// a ClusterClient or Ring a client of the store's own made from its
	// options (its own connections; everything but the hooks added to the
	// application's client carried over), which [Store.Close] releases.
	// A redis.Client or Ring whose timeouts are within Timeout, or that
	// bounds its round trips by the context (ContextTimeoutEnabled), is
	// used as it is; a ClusterClient never is.
	// Decisions never wait for a round. A claim or a lease lives
	// 2·SyncPeriod + Timeout: every node of a fleet must use the same
	// SyncPeriod and Timeout.
	Timeout time.Duration
	// Prefix starts every Redis key; "" means "floodgate:lf:". It may
	// not hold '{' or '}' (the keys' hash tags are the store's own).
	Prefix string
	// Buckets is how many hash tags a bound policy's keys are spread over
	// on a Cluster or Ring client, in [1, 16384]; 0 means DefaultBuckets. A
	// round sends one script call per bucket (per MaxBatch items), and more
	// buckets spread the load over the masters. On a single Redis
	// (*redis.Client) every key is in one bucket.
	Buckets int
	// MaxBatch bounds the items (a window or a bucket of one key) one
	// script call carries, in [1, 65536]; 0 means DefaultMaxBatch. It
	// bounds how long one call holds Redis.
	MaxBatch int
	// MaxKeys bounds the keys each bound policy decides on in memory; 0
	// means core.DefaultMaxKeys. When full, a new key replaces the key
	// whose forgetting admits least, whose unsynced units are still pushed
	// and whose count the node remembers (see the package documentation,
	// "Memory"). Evicted entries kept until their units are pushed bring
	// what a policy holds to at most 1.25 · MaxKeys entries (for MaxKeys
	// ≥ 64), during a Redis outage too.
	MaxKeys int
	// Clock is the clock of the sync rounds, which must be the one the
	// limiters read; nil means the limiters' default, core.SystemClock
	// (not time.Now's wall reading, which a wall-clock step moves away
	// from it).
	Clock core.Clock
}

// Store decides in memory and syncs window counts and buckets through
// Redis: see the package documentation. It is safe for concurrent use.
type Store struct {
	client redis.UniversalClient
	bound  *redisbound.Bound // client's: Release, FlushSoon
	single bool              // client is a *redis.Client: one hash tag for every key
	opts   Options
	script *redis.Script
	id     string // this node's id in the shared state: random per Store

	syncMu sync.Mutex // one round at a time

	mu sync.Mutex
	// keysets are the bound policies' keysets the rounds visit: those a
	// table in use holds, and unused ones until their units are pushed.
	keysets []*keyset
	stats   stats
}

type stats struct {
	rounds, failed, calls, items atomic.Uint64
}

//go:embed sync.lua
var syncLua string

// New returns a store on client with opts.
func New(client redis.UniversalClient, opts Options) (*Store, error) {
	if isnil.Value(client) {
		return nil, fmt.Errorf("localfirst: nil client (%T): %w", client, core.ErrInvalidConfig)
	}
	if opts.Nodes < 1 || opts.Nodes > MaxNodes {
		return nil, fmt.Errorf("localfirst: Nodes %d must be in [1, %d]: %w", opts.Nodes, MaxNodes, core.ErrInvalidConfig)
	}
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&opts.Buckets, DefaultBuckets)
	def(&opts.MaxBatch, DefaultMaxBatch)
	def(&opts.MaxKeys, core.DefaultMaxKeys)
	if opts.SyncPeriod == 0 {
		opts.SyncPeriod = DefaultSyncPeriod
	}
	if opts.Timeout == 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Prefix == "" {
		opts.Prefix = "floodgate:lf:"
	}
	if err := redischeck.Prefix(opts.Prefix); err != nil {
		return nil, fmt.Errorf("localfirst: %w: %w", err, core.ErrInvalidConfig)
	}
	switch {
	case opts.SyncPeriod < MinSyncPeriod || opts.SyncPeriod > MaxSyncPeriod:
		return nil, fmt.Errorf("localfirst: SyncPeriod %v must be in [%v, %v]: %w", opts.SyncPeriod, MinSyncPeriod, MaxSyncPeriod, core.ErrInvalidConfig)
	case opts.Timeout < 0 || opts.Timeout > MaxTimeout:
		return nil, fmt.Errorf("localfirst: Timeout %v must be in (0, %v]: %w", opts.Timeout, MaxTimeout, core.ErrInvalidConfig)
	case opts.Buckets < 1 || opts.Buckets > 16384:
		return nil, fmt.Errorf("localfirst: Buckets %d must be in [1, 16384]: %w", opts.Buckets, core.ErrInvalidConfig)
	case opts.MaxBatch < 1 || opts.MaxBatch > 1<<16:
		return nil, fmt.Errorf("localfirst: MaxBatch %d must be in [1, 65536]: %w", opts.MaxBatch, core.ErrInvalidConfig)
	case opts.MaxKeys < 1:
		return nil, fmt.Errorf("localfirst: MaxKeys %d: %w", opts.MaxKeys, core.ErrInvalidConfig)
	}
	if isnil.Value(opts.Clock) {
		opts.Clock = core.SystemClock()
	}
	// A round's commands end within Timeout whatever the client's options
	// (see redisbound): a round on a connection a failover black-holed
	// ends, and the next one reconverges on a new connection.
	bound := redisbound.New(client, opts.Timeout)
	var id [8]byte
	if _, err := rand.Read(id[:]); err != nil {
		return nil, fmt.Errorf("localfirst: node id: %w", err)
	}
	_, single := bound.Client.(*redis.Client)
	s := &Store{client: bound.Client, bound: bound, single: single, opts: opts, script: redis.NewScript(syncLua), id: hex.EncodeToString(id[:])}
	// A store dropped without Close releases its client all the same.
	runtime.AddCleanup(s, func(b *redisbound.Bound) { b.Release() }, bound)
	return s, nil
}

// Close releases the client the store made of its own for a ClusterClient
// or Ring (see Options.Timeout), once no other store or limiter shares it;
// it never closes the application's client. Call it once Run has
// returned: rounds after it fail. It returns nil.
func (s *Store) Close() error {
	s.bound.Release()
	return nil
}

// Supports reports whether the store can decide p: nil, or the error
// (wrapping core.ErrInvalidConfig) Bind would return. Every limit must be
// a [core.FixedWindow] aligned to the epoch (not Anchored), a
// [core.SlidingWindow] (counts per window, which add up across nodes), or
// a [core.GCRA] or [core.TokenBucket] whose burst refills within a day
// (leased out in units).
func Supports(p *core.Policy) error {
	_, err := limitsOf(p)
	return err
}

// CheckBind returns the error Bind(p) would return, binding nothing:
// core.Limiter.CheckPolicy asks it for the shadow limits of a changed
// policy.
func (s *Store) CheckBind(p *core.Policy) error {
	if s == nil || s.client == nil {
		return fmt.Errorf("localfirst: nil or zero Store (make it with New): %w", core.ErrInvalidConfig)
	}
	ls, err := limitsOf(p)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, _, err = s.sharing(p, ls)
	return err
}

// Bind returns a table deciding p (see [Supports]): on the keys of the
// store's tables of p's name and shape still in use, else on a new, empty
// keyset. Limiters of one name and shape count in the same Redis fields,
// whatever their quotas (as on the Redis store), under the node's one id:
// they decide on one keyset, one decider per node as the bounds of the
// package documentation count them, and the rounds sync with the limits
// of the latest table bound or rebound, as after a SetPolicy. A bucket's
// span (the time its refill fits in) is part of the shape: a policy whose
// buckets refill in other spans decides on a keyset of its own.
func (s *Store) Bind(p *core.Policy) (store.Table, error) {
	if s == nil || s.client == nil {
		return nil, fmt.Errorf("localfirst: nil or zero Store (make it with New): %w", core.ErrInvalidConfig)
	}
	ls, err := limitsOf(p)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prune()
	k, u, err := s.sharing(p, ls)
	if err != nil {
		return nil, err
	}
	if k != nil {
		return &table{k: k, u: u, p: p, ls: ls, ver: k.join(ls)}, nil
	}
	k, u = newKeyset(s, p, ls)
	s.keysets = append(s.keysets, k)
	return &table{k: k, u: u, p: p, ls: ls}, nil
}

// sharing returns (s.mu held) the keyset in use of p's name and shape and
// its users, nil if none; or an error when its limits are not laid out as
// ls (the shape, which fixes the layout, makes that unreachable). (Two
// keysets of one shape would count in the same Redis fields under one
// node id, each claim replacing the other's there while both are spent,
// and each admitting a node's part without a claim.)
func (s *Store) sharing(p *core.Policy, ls []lim) (*keyset, *users, error) {
	fp := shape(p, ls)
	for _, k := range s.keysets {
		if k.fp != fp {
			continue
		}
		u := k.users.Value()
		if u == nil {
			continue // unused: its entries are evicted, pushed, and claim nothing
		}
		if !sameShape(k.lims.Load().ls, ls) {
			return nil, nil, fmt.Errorf("localfirst: policy %q: another limiter on this store counts under its name and shape with its limits laid out otherwise: name the policies apart: %w", p.Name(), core.ErrInvalidConfig)
		}
		return k, u, nil
	}
	return nil, nil, nil
}

// prune releases (s.mu held) the keysets no table uses any more that have
// nothing left to push: the rounds stop visiting them. The rounds push
// what an unused keyset still holds (see keyset.collect), so it is
// released at the round after its last push.
func (s *Store) prune() {
	live := s.keysets[:0]
	for _, k := range s.keysets {
		if !k.unused() || !k.empty() {
			live = append(live, k)
		}
	}
	clear(s.keysets[len(live):])
	s.keysets = live
}

// life is how long a claim or a lease lives, in ns: every node of a fleet
// must have the same SyncPeriod and Timeout.
func (s *Store) life() int64 { return int64(2*s.opts.SyncPeriod + s.opts.Timeout) }

// horizon is how long a node that synced a bucket counts as sharing it,
// in ns: ten periods.
func (s *Store) horizon() int64 { return int64(10 * s.opts.SyncPeriod) }

// Stats counts a store's sync rounds.
type Stats struct {
	// Rounds is the number of sync rounds run, Failed those in which some
	// script call failed, Calls the script calls sent, and Items the
	// limits of keys they carried (a window, or a bucket, of one key).
	Rounds, Failed, Calls, Items uint64
}

// Stats returns the store's counts so far.
func (s *Store) Stats() Stats {
	return Stats{Rounds: s.stats.rounds.Load(), Failed: s.stats.failed.Load(), Calls: s.stats.calls.Load(), Items: s.stats.items.Load()}
}

// Run syncs every SyncPeriod, at instants aligned to multiples of it on
// the store's clock (so the nodes of a fleet with synchronised clocks sync
// at about the same instants, which keeps the views' staleness near one
// period), until ctx is done; it then runs a last round (bounded by
// Timeout) so that what this node admitted reaches Redis, and returns.
// Errors of single rounds are not returned: a failed round leaves the
// counts to the next one (see [Store.Sync]).
func (s *Store) Run(ctx context.Context) {
	p := s.opts.SyncPeriod
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		t.Reset(p - time.Duration(s.opts.Clock.Now().UnixNano()%int64(p)))
		select {
		case <-ctx.Done():
			_ = s.Sync(context.WithoutCancel(ctx))
			return
		case <-t.C:
			_ = s.Sync(ctx)
		}
	}
}

// now reads the store's clock in Unix nanoseconds, or fails with an error
// wrapping core.ErrClock for a reading before 1970 or too late for
// int64 nanoseconds: time.Time.UnixNano wraps there, and a clock reading
// 2600-01-01 would be read as 2015-06-13.
func (s *Store) now() (int64, error) {
	t := s.opts.Clock.Now()
	if sec := t.Unix(); sec < 0 || sec >= math.MaxInt64/int64(time.Second) {
		return 0, fmt.Errorf("localfirst: clock reads %v: %w", t, core.ErrClock)
	}
	return t.UnixNano(), nil
}
