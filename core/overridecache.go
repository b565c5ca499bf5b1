package core

import (
	"context"
	"hash/maphash"
	"sync"
	"time"
)

// overrideCache holds, per key, the limiter Overrides decides it by until
// an instant: shards of maps, each bounded.
type overrideCache struct {
	seed   maphash.Seed
	shards [overrideShards]overrideShard
}

const overrideShards = 16

// overrideScan is how many entries a full shard examines for an expired
// one before it forgets any.
const overrideScan = 16

type overrideShard struct {
	mu  sync.Mutex
	m   map[string]*overrideEntry
	max int // entries at most
}

// overrideEntry is a key's cached limiter. While the provider is asked,
// done is false and waiters wait on ready; lim and exp are written under
// the shard's lock before ready is closed.
type overrideEntry struct {
	lim   *Limiter
	exp   int64
	done  bool
	ready chan struct{}
}

func (c *overrideCache) init(maxKeys int) {
	c.seed = maphash.MakeSeed()
	for i := range c.shards {
		c.shards[i].m = map[string]*overrideEntry{}
		c.shards[i].max = max(1, maxKeys/overrideShards)
	}
}

// get returns key's limiter at now: cached, or resolved (once for all
// concurrent callers of key) and cached for the duration resolve returns.
// It fails only when ctx ends while another caller resolves key.
func (c *overrideCache) get(ctx context.Context, key string, now int64,
	resolve func(context.Context, string) (*Limiter, time.Duration)) (*Limiter, error) {
	s := &c.shards[maphash.String(c.seed, key)%overrideShards]
	s.mu.Lock()
	e := s.m[key]
	switch {
	case e != nil && e.done && now < e.exp:
		l := e.lim
		s.mu.Unlock()
		return l, nil
	case e != nil && !e.done:
		s.mu.Unlock()
		select {
		case <-e.ready:
			return e.lim, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	cached := e != nil || s.room(now)
	if cached {
		e = &overrideEntry{ready: make(chan struct{})}
		s.m[key] = e
	}
	s.mu.Unlock()
	l, ttl := resolve(ctx, key)
	if cached {
		s.mu.Lock()
		e.lim, e.exp, e.done = l, now+int64(ttl), true
		s.mu.Unlock()
		close(e.ready)
	}
	return l, nil
}

// room makes room for one more entry (s.mu held): it forgets an expired
// entry among the first overrideScan, else any resolved one. It reports
// false when every entry is still being resolved: the key is then not
// cached.
func (s *overrideShard) room(now int64) bool {
	if len(s.m) < s.max {
		return true
	}
	var any string
	found, scanned := false, 0
	for k, e := range s.m {
		if !e.done {
			continue
		}
		if now >= e.exp {
			delete(s.m, k)
			return true
		}
		if !found {
			any, found = k, true
		}
		if scanned++; scanned >= overrideScan {
			break
		}
	}
	if found {
		delete(s.m, any)
	}
	return found
}
