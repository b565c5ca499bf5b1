package redisstore

import (
	"hash/maphash"
	"sync"
	"time"

	"github.com/floodgate-go/floodgate/core"
)

// denyCache remembers denials of cost 1 until their RetryAfter: see
// Options.DenyCacheSize.
type denyCache struct {
	seed   maphash.Seed
	shards [32]denyShard
	max    int // per shard
}

type denyShard struct {
	mu      sync.Mutex
	m       map[string]denyEntry
	visited int // entries looked at to make room (a measure for tests)
}

// evictSample is how many entries a full shard looks at to make room: the
// cost of a denial stays constant however full the cache is.
const evictSample = 8

type denyEntry struct {
	at, until int64 // local instants, Unix ns
	out       core.Outcome
}

func newDenyCache(size int) *denyCache {
	c := &denyCache{seed: maphash.MakeSeed(), max: max(1, size/32)}
	for i := range c.shards {
		c.shards[i].m = map[string]denyEntry{}
	}
	return c
}

func (c *denyCache) shard(key string) *denyShard {
	return &c.shards[maphash.String(c.seed, key)%uint64(len(c.shards))]
}

// get returns key's denial as of now, if it still holds.
func (c *denyCache) get(key string, now int64) (core.Outcome, bool) {
	s := c.shard(key)
	s.mu.Lock()
	e, ok := s.m[key]
	if ok && (now >= e.until || now < e.at) {
		delete(s.m, key)
		ok = false
	}
	s.mu.Unlock()
	if !ok {
		return core.Outcome{}, false
	}
	el := time.Duration(now - e.at)
	o := e.out
	o.RetryAfter -= el
	o.ResetAfter = max(0, o.ResetAfter-el)
	return o, true
}

// put remembers a denial decided at (or after) the local instant at.
func (c *denyCache) put(key string, at int64, o core.Outcome) {
	if o.RetryAfter <= 0 {
		return
	}
	s := c.shard(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[key]; !ok && len(s.m) >= c.max {
		// Room for one: among a few entries (map order is random), the
		// expired ones go, else the one expiring first. Forgetting a
		// denial is exact: the key is decided by Redis again.
		var victim string
		var first int64
		n := 0
		for k, e := range s.m {
			s.visited++
			if at >= e.until {
				delete(s.m, k)
			} else if victim == "" || e.until < first {
				victim, first = k, e.until
			}
			if n++; n == evictSample {
				break
			}
		}
		if len(s.m) >= c.max {
			delete(s.m, victim)
		}
	}
	s.m[key] = denyEntry{at: at, until: at + int64(o.RetryAfter), out: o}
}

func (c *denyCache) del(key string) {
	s := c.shard(key)
	s.mu.Lock()
	delete(s.m, key)
	s.mu.Unlock()
}
