package core

import (
	"context"
	"hash/maphash"
	"math"
	"sync"
	"time"
)

// overrideCache holds, per key, the limiter Overrides decides it by until
// an instant: shards of maps, each bounded. It keeps a 128-bit keyed hash
// of each key, never the key (whose length the request may choose: a
// tenant header's value), so that its memory is bounded by its MaxKeys.
// Two keys sharing a hash (about 2^-128 a pair, with seeds an attacker
// cannot aim at) would share an entry.
type overrideCache struct {
	seed   [2]maphash.Seed
	shards [overrideShards]overrideShard
}

// overrideKey is a key's 128-bit hash.
type overrideKey [2]uint64

// (A shard holds its cache's default limiter, def, to tell the entries of
// keys with an override from those decided by the default: see room.)

const overrideShards = 16

type overrideShard struct {
	mu  sync.Mutex
	m   map[overrideKey]*overrideEntry
	max int      // entries at most
	def *Limiter // the default's limiter
	// defs and overs hold the answered entries of m by expiry, the
	// default's apart from the others', so that a full shard finds an
	// entry that may go without looking at the others (see room).
	defs, overs untilHeap[*overrideEntry]
	visited     int // entries looked at to make room (a measure for tests)
}

// overrideEntry is a key's cached limiter. While the provider is asked,
// done is false and waiters wait on ready; lim, exp and gone are written
// under the shard's lock before ready is closed. gone marks an answer
// that was not given (the asking caller went away, or resolve panicked):
// its waiters ask again.
type overrideEntry struct {
	key   overrideKey
	lim   *Limiter
	exp   int64
	done  bool
	gone  bool
	ready chan struct{}
}

// resolveFunc asks for key's limiter; prev is the limiter the key was
// decided by before (its expired entry's), nil when the key is not
// cached; now is the instant the answer's cache duration counts from. It
// returns the limiter and how long to cache it, or an error (the caller's
// context ended) for an answer that must not be cached.
type resolveFunc func(ctx context.Context, key string, prev *Limiter, now int64) (*Limiter, time.Duration, error)

func (c *overrideCache) init(maxKeys int, def *Limiter) {
	c.seed = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}
	for i := range c.shards {
		c.shards[i].m = map[overrideKey]*overrideEntry{}
		c.shards[i].max = max(1, maxKeys/overrideShards)
		c.shards[i].def = def
	}
}

// get returns key's limiter at now: cached, or resolved (once for all
// concurrent callers of key) and cached for the duration resolve returns.
// It fails when ctx ends while another caller resolves key, or with
// resolve's error; an answer not given (resolve failed or panicked) is
// cached for no one, and the callers that waited for it ask again.
func (c *overrideCache) get(ctx context.Context, key string, now int64, resolve resolveFunc) (*Limiter, error) {
	k := overrideKey{maphash.String(c.seed[0], key), maphash.String(c.seed[1], key)}
	s := &c.shards[k[0]%overrideShards]
	for {
		s.mu.Lock()
		e := s.m[k]
		switch {
		case e != nil && e.done && now < e.exp:
			l := e.lim
			s.mu.Unlock()
			return l, nil
		case e != nil && !e.done:
			s.mu.Unlock()
			select {
			case <-e.ready:
				if e.gone {
					continue
				}
				return e.lim, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return s.resolve(ctx, e, k, key, now, resolve)
	}
}

// resolve resolves key, of hash k, whose expired entry is old (nil if
// none), and caches the answer if there is room (s.mu held on entry,
// released).
func (s *overrideShard) resolve(ctx context.Context, old *overrideEntry, k overrideKey, key string, now int64,
	resolve resolveFunc) (l *Limiter, err error) {
	var prev *Limiter
	if old != nil {
		prev = old.lim
	}
	var e *overrideEntry
	if old != nil || s.room(now) {
		e = &overrideEntry{key: k, ready: make(chan struct{})}
		s.m[k] = e
	}
	s.mu.Unlock()
	if e == nil {
		l, _, err = resolve(ctx, key, prev, now)
		return l, err
	}
	given := false
	defer func() {
		s.mu.Lock()
		if given {
			e.done = true
			s.track(e)
		} else {
			e.gone = true
			if old != nil && s.m[k] == e {
				s.m[k] = old // kept for the next caller's prev
				s.track(old)
			} else if s.m[k] == e {
				delete(s.m, k)
			}
		}
		s.mu.Unlock()
		close(e.ready)
	}()
	l, ttl, err := resolve(ctx, key, prev, now)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	e.lim, e.exp = l, now+min(int64(ttl), math.MaxInt64-max(now, 0)) // a TTL past 2262 is forever
	s.mu.Unlock()
	given = true
	return l, nil
}
