package redisstore

import (
	"hash/maphash"
	"sync"
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

// denyEntry is a denial: out holds from anchor on the caller's clock
// (Unix ns) until anchor + out.RetryAfter; a request whose clock reads
// before at, the instant the denial's request was made, is not answered
// from it (a caller lagging behind that request).
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

// get returns key's denial as of now, if it still holds.
func (c *denyCache) get(key string, now int64) (store.Outcome, bool) {
	k, s := c.shard(key)
	s.mu.Lock()
	e, ok := s.m[k]
	if ok && (now >= e.until || now < e.at) {
		delete(s.m, k)
		ok = false
	}
	s.mu.Unlock()
	if !ok {
		return store.Outcome{}, false
	}
	// (Before the anchor, for a request made while the denial's round
	// trip was out: longer than Redis's, never shorter.)
	el := time.Duration(now - e.anchor)
	o := e.out
	o.RetryAfter = time.Duration(e.until - now)
	o.ResetAfter = max(0, o.ResetAfter-el)
	return o, true
}

// put remembers a denial of a request made at the local instant at whose
// RetryAfter and ResetAfter run from anchor (≥ at).
func (c *denyCache) put(key string, at, anchor int64, o store.Outcome) {
	if o.RetryAfter <= 0 {
		return
	}
	k, s := c.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[k]; !ok && len(s.m) >= c.max {
		// Room for one: among a few entries (map order is random), the
		// expired ones go, else the one expiring first. Forgetting a
		// denial is exact: the key is decided by Redis again.
		var victim denyKey
		var first int64
		n, found := 0, false
		for vk, e := range s.m {
			s.visited++
			if at >= e.until {
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

func (c *denyCache) del(key string) {
	k, s := c.shard(key)
	s.mu.Lock()
	delete(s.m, k)
	s.mu.Unlock()
}
