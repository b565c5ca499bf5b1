package core

import (
	"fmt"
	"hash/maphash"
	"math/bits"

	"github.com/floodgate-go/floodgate/core/store"
)

// DefaultMaxKeys is the MaxKeys of a [MemoryStore] whose options leave it
// 0, for policies whose state is small: see [DefaultMaxStateBytes].
const DefaultMaxKeys = 1 << 20

// DefaultMaxStateBytes bounds the state each policy's table keeps (its
// keys times their slot, 8 bytes of hash and 8 per state word) when
// MaxKeys is left 0: such a table holds DefaultMaxKeys keys, or fewer when
// the policy's slots are larger than 128 bytes (a SlidingLog of quota
// 1,000 keeps 8 kB per key: 16,576 keys; a RollingWindow of 1,024
// periods 8.2 kB: 16,256; four SlidingLogs of quota 65,536, 2 MiB: 60),
// so that a flood of distinct keys cannot grow a table past this much
// state and a quarter more of free slots. A table of fewer keys than the
// store's shards times 16 gets fewer shards (at least 16 keys each where
// it can), so that eviction always has candidates to choose from. Set
// MaxKeys to choose the bound yourself.
const DefaultMaxStateBytes = 128 << 20

// WhenFull is what a [MemoryStore] table does with a new key when it holds
// MaxKeys keys.
type WhenFull uint8

const (
	// EvictCheapest, the default, makes room for a new key by forgetting
	// another: first an entry that has fully recovered (exact: it decides as
	// a key never seen), else the entry whose forgetting admits least by its
	// own algorithm's measure (units taken and not yet recovered; for
	// Backoff, the attempts a fresh key would get before the lockout's end,
	// so a lockout or an exhausted window weighs far more than a key that
	// sent one request), the nearest to recovery among equals. Candidates
	// are the entries within evictScan slots of the new key's home slot,
	// whose placement an attacker cannot aim at (the hash has a per-store
	// random seed): bounded work per insert.
	//
	// New keys are always decided as keys never seen. The bound: a key
	// whose entry would admit m units on forgetting is forgotten only when
	// every other candidate would admit m or more (among equals, the
	// nearest to recovery goes first); the key then gains at most m units
	// (for Backoff and WarmUp: before its current wait ends). So a flood
	// of keys each lighter than a limited key never erases it, and a flood
	// that erases it must first make about MaxKeys keys as limited, each by
	// having about m units admitted (TestMemoryFloodOfLimitedKeys).
	EvictCheapest WhenFull = iota
	// RefuseNew denies requests of new keys (Result.Allowed false, with
	// RetryAfter the time until the nearest entry recovers) and keeps every
	// existing key: nothing is over-admitted, but an attacker with enough
	// source addresses fills the table and shuts out every new client until
	// its entries recover. Opt in only where that is the lesser harm.
	RefuseNew
)

// MemoryOptions configures a [MemoryStore].
type MemoryOptions struct {
	// MaxKeys bounds the keys each bound policy keeps: a hard bound, split
	// evenly across shards (a shard evicts, or refuses, when it holds
	// MaxKeys/Shards keys). 0 means [DefaultMaxKeys], or fewer for a
	// policy whose state is large (see [DefaultMaxStateBytes]).
	MaxKeys int
	// Shards is the number of independently locked shards, a power of two.
	// 0 picks up to 64, keeping at least 16 keys per shard. With MaxKeys
	// left 0, a policy whose state is large gets fewer (see
	// [DefaultMaxStateBytes]).
	Shards int
	// WhenFull chooses what happens to new keys when a shard is full; the
	// zero value is [EvictCheapest].
	WhenFull WhenFull
}

// MemoryStore keeps limiter state in process memory: the default store.
//
// Each bound policy gets a sharded open-addressing table of fixed-size
// entries (a 64-bit keyed hash of the key followed by the policy's state
// words), so deciding for an existing key allocates nothing. Keys themselves
// are not kept: two keys whose hashes collide (about 1 in 3·10^7 at 10^6
// keys, with a per-store random seed an attacker cannot aim at) share state,
// which can only deny more, never admit more.
//
// A policy whose whole state is one word (a single [GCRA] or [LeakyBucket]
// limit) decides for an existing key without a lock: one compare-and-swap
// of the key's state word, exact under any interleaving (goroutines never
// wait on each other's decisions, only on a shard's rare rebuild). The other
// policies keep two words or more per key, which no single compare-and-swap
// covers, and decide under their shard's lock.
//
// An entry that has fully recovered is indistinguishable from a new key, so
// dropping it is exact. Recovered entries are dropped whenever a shard must
// grow or is full: incrementally, per shard, with no goroutine. A full
// shard then forgets the entry whose forgetting admits least (see
// [EvictCheapest]): under a flood of distinct keys twice MaxKeys, keys held
// at their limit stay limited and new keys keep being decided normally.
type MemoryStore struct {
	opts   MemoryOptions
	dflt   bool // opts.MaxKeys was left 0: each table's is bounded by DefaultMaxStateBytes
	seed   maphash.Seed
	tables memTables // for AppendUsage (memusage.go)
}

// NewMemoryStore returns an empty store.
func NewMemoryStore(opts MemoryOptions) (*MemoryStore, error) {
	dflt := opts.MaxKeys == 0
	if dflt {
		opts.MaxKeys = DefaultMaxKeys
	}
	if opts.MaxKeys < 1 {
		return nil, fmt.Errorf("core: memory store: MaxKeys %d: %w", opts.MaxKeys, ErrInvalidConfig)
	}
	if opts.Shards == 0 {
		opts.Shards = 64
		for opts.Shards > 1 && opts.MaxKeys/opts.Shards < 16 {
			opts.Shards /= 2
		}
	}
	if opts.Shards < 1 || opts.Shards&(opts.Shards-1) != 0 || opts.Shards > opts.MaxKeys {
		return nil, fmt.Errorf("core: memory store: Shards %d must be a power of two ≤ MaxKeys: %w", opts.Shards, ErrInvalidConfig)
	}
	if opts.WhenFull > RefuseNew {
		return nil, fmt.Errorf("core: memory store: WhenFull %d: %w", opts.WhenFull, ErrInvalidConfig)
	}
	return &MemoryStore{opts: opts, dflt: dflt, seed: maphash.MakeSeed()}, nil
}

// layout returns how many shards p's table has and how many keys each
// holds: MaxKeys's share of the store's shards or, with MaxKeys left 0, at
// most DefaultMaxStateBytes of p's state in all. Such a table that keeps
// fewer keys than the store's shards times 16 gets fewer shards, as
// NewMemoryStore chooses them for MaxKeys (at least 16 keys each where it
// can), so that a new key's candidates for eviction are never its shard's
// one or two entries; and its slots, free ones included, take at most a
// quarter more than DefaultMaxStateBytes.
func (m *MemoryStore) layout(p *Policy) (shards, perShard int) {
	shards = m.opts.Shards
	if !m.dflt {
		return shards, m.opts.MaxKeys / shards
	}
	slot := 8 * (1 + p.words)
	keys := max(1, min(m.opts.MaxKeys, DefaultMaxStateBytes/slot))
	for shards > 1 && keys/shards < 16 {
		shards /= 2
	}
	perShard = keys / shards
	w, _ := wordStepOf(p)
	for perShard > 1 && shards*capLimit(perShard, w != nil)*slot > DefaultMaxStateBytes*5/4 {
		perShard--
	}
	return shards, perShard
}

// Bind returns a new, empty table for p.
func (m *MemoryStore) Bind(p *Policy) (store.Table, error) {
	if p == nil || len(p.limits) == 0 {
		return nil, fmt.Errorf("core: memory store: nil or zero policy: %w", ErrInvalidConfig)
	}
	if m == nil || m.opts.Shards < 1 {
		return nil, fmt.Errorf("core: nil or zero MemoryStore (make it with NewMemoryStore): %w", ErrInvalidConfig)
	}
	shards, perShard := m.layout(p)
	shardBits := uint(bits.TrailingZeros(uint(shards)))
	t := &memTable{
		policy:     p,
		base:       p,
		seed:       m.seed,
		shards:     make([]memShard, shards),
		shardBits:  shardBits,
		shardShift: (64 - shardBits) & 63,
		shardMask:  uint64(shards - 1),
		perShard:   perShard,
		evict:      m.opts.WhenFull == EvictCheapest,
		stride:     1 + p.words,
		lineMask:   lineMaskOf(1 + p.words),
		zero:       make([]int64, p.words),
	}
	t.setWord(p)
	m.tables.add(t)
	return t, nil
}
