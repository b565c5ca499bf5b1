package localfirst

import (
	"fmt"

	"github.com/floodgate-go/floodgate/core"
)

// ClockOf returns the clock s reads (Options.Clock, or its default).
func ClockOf(s *Store) core.Clock { return s.opts.Clock }

// Dump returns key's buckets on s, for debugging tests.
func Dump(s *Store, key string, now int64) string {
	out := ""
	for _, k := range s.keysets {
		sh, h := k.shard(key)
		sh.mu.Lock()
		if e := sh.get(h, key); e != nil {
			ls := k.lims.Load().ls
			for i := range ls {
				if ls[i].kind.bucket() {
					b := e.bs[ls[i].at]
					out += fmt.Sprintf("credit %d exp %v frozen %d unconf %d viewavail %d k %d sharers %d; ", b.credit, b.exp > now, b.frozen, b.unconf, ls[i].avail(&b, now), b.k, b.sharers)
				}
			}
		}
		sh.mu.Unlock()
	}
	return out
}

// Held returns the entries s keeps in memory: every shard's list, which
// holds every indexed entry and every evicted one kept.
func Held(s *Store) int {
	s.mu.Lock()
	keysets := append([]*keyset(nil), s.keysets...)
	s.mu.Unlock()
	n := 0
	for _, k := range keysets {
		for i := range k.shards {
			sh := &k.shards[i]
			sh.mu.Lock()
			n += len(sh.list)
			sh.mu.Unlock()
		}
	}
	return n
}

// HeldBound is the most entries Held may return for one keyset of a
// store of MaxKeys maxKeys: see the package documentation, "Memory".
func HeldBound(maxKeys int) int {
	n, per := shards(maxKeys)
	return n * (per + limboCap(per))
}

// Keysets returns how many keysets the rounds of s visit.
func Keysets(s *Store) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.keysets)
}

// Indexed reports whether a keyset of s indexes key: decides on an entry
// of its own.
func Indexed(s *Store, key string) bool {
	s.mu.Lock()
	keysets := append([]*keyset(nil), s.keysets...)
	s.mu.Unlock()
	for _, k := range keysets {
		sh, h := k.shard(key)
		sh.mu.Lock()
		e := sh.get(h, key)
		sh.mu.Unlock()
		if e != nil {
			return true
		}
	}
	return false
}
