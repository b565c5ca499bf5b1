package redisstore

import (
	"hash/maphash"
	"sync"
	"sync/atomic"
	"time"

	"github.com/floodgate-go/floodgate/core/store"
)

// denyCache remembers denials of cost 1 until their RetryAfter: see
// Options.DenyCacheSize. It keeps a 128-bit keyed hash of each key, never
// the key (whose length the request chooses): its memory is bounded by its
// size. Two keys sharing a hash (about 2^-128 a pair, with seeds an
// attacker cannot aim at) would share a denial: denying more, never
// admitting more.
type denyCache struct {
	seed   [2]maphash.Seed
	shards [32]denyShard
	max    int // per shard
	// gens counts, per bucket of keys (by hash), the refunds and resets
	// that forgot a key of the bucket: a denial decided while one was out
	// is not remembered (see put).
	gens [1024]atomic.Uint64
}

// denyKey is a key's 128-bit hash.
type denyKey [2]uint64

type denyShard struct {
	mu      sync.Mutex
	m       map[denyKey]denyEntry
	visited int // entries looked at to make room (a measure for tests)
}

// evictSample is how many entries a full shard looks at to make room: the
// cost of a denial stays constant however full the cache is.
const evictSample = 8

// denyEntry is a denial: out holds from anchor until anchor +
// out.RetryAfter on the cache's clock (see table.cacheNow); a request whose
// own instant (the caller's clock, Unix ns) is before at, the instant of
// the denial's request, is not answered from it (a caller lagging behind
// that request).
type denyEntry struct {
	at, anchor, until int64
	out               store.Outcome
}

func newDenyCache(size int) *denyCache {
	c := &denyCache{seed: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}, max: max(1, size/32)}
	for i := range c.shards {
		c.shards[i].m = map[denyKey]denyEntry{}
	}
	return c
}

// shard returns key's hash and shard.
func (c *denyCache) shard(key string) (denyKey, *denyShard) {
	k := denyKey{maphash.String(c.seed[0], key), maphash.String(c.seed[1], key)}
	return k, &c.shards[k[0]%uint64(len(c.shards))]
}

// get returns key's denial as of now on the cache's clock, for a request
// of instant at on the caller's, if it still holds; otherwise the
// generation of the key's bucket, which a denial of the request about to
// be sent is put with (see put).
func (c *denyCache) get(key string, at, now int64) (o store.Outcome, ok bool, gen uint64) {
	k, s := c.shard(key)
	s.mu.Lock()
	e, ok := s.m[k]
	if ok && (now >= e.until || at < e.at) {
		delete(s.m, k)
		ok = false
	}
	if !ok {
		gen = c.gens[k[1]%uint64(len(c.gens))].Load()
	}
	s.mu.Unlock()
	if !ok {
		return store.Outcome{}, false, gen
	}
	// (Before the anchor, for a request made while the denial's round
	// trip was out: longer than Redis's, never shorter.)
	el := time.Duration(now - e.anchor)
	o = e.out
	o.RetryAfter = time.Duration(e.until - now)
	o.ResetAfter = max(0, o.ResetAfter-el)
	return o, true, 0
}

// put remembers a denial of a request of instant at (the caller's clock)
// whose RetryAfter and ResetAfter run from anchor, now on the cache's
// clock, unless a refund or a
// reset forgot a key of its bucket since get gave gen: Redis may have
// decided the request before the refund, whose units the denial would
// then hide until it ends. (A refund of another key of the bucket has the
// same effect: remembering less is exact.)
func (c *denyCache) put(key string, at, anchor int64, o store.Outcome, gen uint64) {
	if o.RetryAfter <= 0 {
		return
	}
	k, s := c.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.gens[k[1]%uint64(len(c.gens))].Load() != gen {
		return
	}
	if _, ok := s.m[k]; !ok && len(s.m) >= c.max {
		// Room for one: among a few entries (map order is random), the
		// expired ones go, else the one expiring first. Forgetting a
		// denial is exact: the key is decided by Redis again.
		var victim denyKey
		var first int64
		n, found := 0, false
		for vk, e := range s.m {
			s.visited++
			if anchor >= e.until {
				delete(s.m, vk)
			} else if !found || e.until < first {
				victim, first, found = vk, e.until, true
			}
			if n++; n == evictSample {
				break
			}
		}
		if len(s.m) >= c.max {
			delete(s.m, victim)
		}
	}
	s.m[k] = denyEntry{at: at, anchor: anchor, until: anchor + int64(o.RetryAfter), out: o}
}

// del forgets key's denial. forget, for a refund or a reset, also makes
// put ignore the denials of the key's bucket decided while it was out:
// called when it is sent and again when it has ended.
func (c *denyCache) del(key string, forget bool) {
	k, s := c.shard(key)
	s.mu.Lock()
	delete(s.m, k)
	if forget {
		c.gens[k[1]%uint64(len(c.gens))].Add(1)
	}
	s.mu.Unlock()
}
