package localfirst

import (
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/store"
	"github.com/floodgate-go/floodgate/internal/isnil"
	"github.com/floodgate-go/floodgate/internal/redisbound"
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
	// DefaultTrack is the Track of Options that leave it 0.
	DefaultTrack = 10
	// DefaultMaxBatch is the MaxBatch of Options that leave it 0.
	DefaultMaxBatch = 512
	// MaxNodes bounds Nodes.
	MaxNodes = 1 << 16
)

// Options configures a [Store].
type Options struct {
	// Nodes is how many processes share the limits through this Redis:
	// required, in [1, MaxNodes]. A node without a live claim on a window
	// and without evidence of how many nodes share the key (during a Redis
	// outage, say) holds at most 1/Nodes of what it knows remains; see the
	// package documentation. Overstating it is safe (such a node grants
	// less); understating it over-admits.
	Nodes int
	// SyncPeriod is the time between two sync rounds of [Store.Run], in
	// [MinSyncPeriod, MaxSyncPeriod]; 0 means DefaultSyncPeriod.
	SyncPeriod time.Duration
	// Timeout bounds one sync round, in (0, MaxTimeout]; 0 means
	// DefaultTimeout. It is the round's context deadline, and the read
	// and write timeout of the clone of a redis.Client the store sends
	// with (sharing its pool), whatever the client's own timeouts, so that
	// a round on a connection a failover black-holed ends; a ClusterClient
	// or Ring whose reads never time out, nor by the context, is refused.
	// Decisions never wait for a round. A claim lives 2·SyncPeriod + Timeout: every node of
	// a fleet must use the same SyncPeriod and Timeout.
	Timeout time.Duration
	// Prefix starts every Redis key; "" means "floodgate:lf:".
	Prefix string
	// Buckets is how many hash tags a bound policy's keys are spread over,
	// in [1, 16384]; 0 means DefaultBuckets. On a Cluster or Ring client a
	// round sends one script call per bucket (per MaxBatch counters), and
	// more buckets spread the load over the masters; on a single Redis
	// (*redis.Client) one call carries every bucket.
	Buckets int
	// MaxBatch bounds the window counters one script call carries, in
	// [1, 65536]; 0 means DefaultMaxBatch. It bounds how long one call
	// holds Redis.
	MaxBatch int
	// Track is how many rounds after a node last decided a key it keeps
	// reading the key's counts back and claiming a share of it, in
	// [1, 1<<20]; 0 means DefaultTrack. More keeps rarely decided keys
	// fresh at the cost of Redis work per round; fewer frees shares sooner.
	Track int
	// SkipIdle lets a round skip reading back a tracked key that has
	// nothing to push, a live claim on each current window and a read less
	// than SyncPeriod + Timeout old: fewer Redis commands for keys nothing
	// happened to on this node, whose decisions stay within the claim (so
	// the over-admission bound is unchanged). Its cost: what the other
	// nodes did to such a key (their counts, a reset, a refund, a claim
	// they let lapse) reaches this node's view after up to SyncPeriod +
	// Timeout and one round, instead of one round. Off by default.
	SkipIdle bool
	// MaxKeys bounds the keys each bound policy keeps in memory; 0 means
	// core.DefaultMaxKeys. When full, a new key replaces an arbitrary one,
	// whose unsynced units are still pushed.
	MaxKeys int
	// Clock is the clock of the sync rounds, which must be the one the
	// limiters read; nil means the system clock.
	Clock core.Clock
}

// Store decides in memory and syncs window counts through Redis: see the
// package documentation. It is safe for concurrent use.
type Store struct {
	client redis.UniversalClient
	opts   Options
	script *redis.Script
	id     string // this node's field in the counters: random per Store

	// round is the number of the last completed sync round (from 1: a
	// key no round read is stale).
	round  atomic.Uint64
	syncMu sync.Mutex // one round at a time

	mu     sync.Mutex
	tables []*table
	stats  stats
}

type stats struct {
	rounds, failed, calls atomic.Uint64
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
	def(&opts.Track, DefaultTrack)
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
	switch {
	case opts.SyncPeriod < MinSyncPeriod || opts.SyncPeriod > MaxSyncPeriod:
		return nil, fmt.Errorf("localfirst: SyncPeriod %v must be in [%v, %v]: %w", opts.SyncPeriod, MinSyncPeriod, MaxSyncPeriod, core.ErrInvalidConfig)
	case opts.Timeout < 0 || opts.Timeout > MaxTimeout:
		return nil, fmt.Errorf("localfirst: Timeout %v must be in (0, %v]: %w", opts.Timeout, MaxTimeout, core.ErrInvalidConfig)
	case opts.Buckets < 1 || opts.Buckets > 16384:
		return nil, fmt.Errorf("localfirst: Buckets %d must be in [1, 16384]: %w", opts.Buckets, core.ErrInvalidConfig)
	case opts.MaxBatch < 1 || opts.MaxBatch > 1<<16:
		return nil, fmt.Errorf("localfirst: MaxBatch %d must be in [1, 65536]: %w", opts.MaxBatch, core.ErrInvalidConfig)
	case opts.Track < 1 || opts.Track > 1<<20:
		return nil, fmt.Errorf("localfirst: Track %d must be in [1, 1048576]: %w", opts.Track, core.ErrInvalidConfig)
	case opts.MaxKeys < 1:
		return nil, fmt.Errorf("localfirst: MaxKeys %d: %w", opts.MaxKeys, core.ErrInvalidConfig)
	}
	if isnil.Value(opts.Clock) {
		opts.Clock = systemClock{}
	}
	// A round's commands end within Timeout whatever the client's options
	// (see redisbound): a round on a connection a failover black-holed
	// ends, and the next one reconverges on a new connection.
	client, err := redisbound.Client("localfirst", client, opts.Timeout)
	if err != nil {
		return nil, err
	}
	var id [8]byte
	if _, err := rand.Read(id[:]); err != nil {
		return nil, fmt.Errorf("localfirst: node id: %w", err)
	}
	s := &Store{client: client, opts: opts, script: redis.NewScript(syncLua), id: hex.EncodeToString(id[:])}
	s.round.Store(1)
	return s, nil
}

// Supports reports whether the store can decide p: nil, or the error
// (wrapping core.ErrInvalidConfig) Bind would return. Every limit must be
// a [core.FixedWindow] aligned to the epoch (not Anchored) or a
// [core.SlidingWindow]: counts per window, which add up across nodes.
func Supports(p *core.Policy) error {
	_, err := counters(p)
	return err
}

func counters(p *core.Policy) ([]counter, error) {
	if p == nil {
		return nil, fmt.Errorf("localfirst: nil policy: %w", core.ErrInvalidConfig)
	}
	var cs []counter
	for _, l := range p.Limits() {
		switch a := l.Algorithm.(type) {
		case core.FixedWindow:
			if a.Anchored {
				return nil, fmt.Errorf("localfirst: policy %q: limit %q: an Anchored FixedWindow starts each key's window at its first request, which nodes do not agree on: %w", p.Name(), l.Name, core.ErrInvalidConfig)
			}
			cs = append(cs, counter{limit: a.Quota, window: int64(a.Window)})
		case core.SlidingWindow:
			cs = append(cs, counter{limit: a.Quota, window: int64(a.Window), sliding: true})
		default:
			return nil, fmt.Errorf("localfirst: policy %q: limit %q: %T cannot be synced as window counts: %s (see the package documentation; use the Redis store for it): %w", p.Name(), l.Name, a, unsyncable(a), core.ErrInvalidConfig)
		}
	}
	return cs, nil
}

// unsyncable says in a few words why a's state is not a sum of counts.
func unsyncable(a core.Algorithm) string {
	switch a.(type) {
	case core.GCRA, core.TokenBucket:
		return "its state is a time advanced from max(state, now), so each node's admissions depend on when the others' were merged, and a node cannot tell what a lagging view lets it admit"
	case core.LeakyBucket:
		return "each admission's delay is its place in one queue, which a node cannot assign without the others'"
	case core.SlidingLog:
		return "its state is every admission's timestamp, not a count"
	case core.Hybrid, core.WarmUp, core.Backoff:
		return "its mode switches on the order of events, not on a total"
	case core.RollingWindow:
		return "its per-period counters could be synced like a SlidingWindow's, which is not implemented"
	}
	return "its state is not a sum of counts"
}

// Bind returns a new, empty table deciding p; see [Supports].
func (s *Store) Bind(p *core.Policy) (store.Table, error) {
	if s == nil || s.client == nil {
		return nil, fmt.Errorf("localfirst: nil or zero Store (make it with New): %w", core.ErrInvalidConfig)
	}
	cs, err := counters(p)
	if err != nil {
		return nil, err
	}
	t := newTable(s, p, cs)
	s.mu.Lock()
	s.tables = append(s.tables, t)
	s.mu.Unlock()
	return t, nil
}

// life is how long a claim lives, in ns: every node of a fleet must have
// the same SyncPeriod and Timeout.
func (s *Store) life() int64 { return int64(2*s.opts.SyncPeriod + s.opts.Timeout) }

// Stats counts a store's sync rounds.
type Stats struct {
	// Rounds is the number of sync rounds run, Failed those in which some
	// script call failed, and Calls the script calls sent.
	Rounds, Failed, Calls uint64
}

// Stats returns the store's counts so far.
func (s *Store) Stats() Stats {
	return Stats{Rounds: s.stats.rounds.Load(), Failed: s.stats.failed.Load(), Calls: s.stats.calls.Load()}
}

// Run syncs every SyncPeriod, at instants aligned to multiples of it on
// the system clock (so the nodes of a fleet with synchronised clocks sync
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
		t.Reset(p - time.Duration(time.Now().UnixNano()%int64(p)))
		select {
		case <-ctx.Done():
			_ = s.Sync(context.WithoutCancel(ctx))
			return
		case <-t.C:
			_ = s.Sync(ctx)
		}
	}
}

// systemClock is the clock when Options.Clock is nil.
type systemClock struct{}

// Now returns time.Now().
func (systemClock) Now() time.Time { return time.Now() }
