package core

import (
	"sync"
	"weak"
)

// MemoryUsage is how full one policy's table in a [MemoryStore] is.
type MemoryUsage struct {
	// Policy is the bound policy's name.
	Policy string
	// Keys is how many keys the table holds, recovered or not yet swept.
	Keys int
	// MaxKeys is the table's bound: MemoryOptions.MaxKeys, rounded down to
	// a multiple of its shards (each shard holds MaxKeys/Shards keys).
	MaxKeys int
}

// memTables remembers a store's bound tables, weakly: a table no limiter
// uses any more is collected as if it were not listed.
type memTables struct {
	mu   sync.Mutex
	list []weak.Pointer[memTable]
}

func (ts *memTables) add(t *memTable) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	live := ts.list[:0]
	for _, w := range ts.list {
		if w.Value() != nil {
			live = append(live, w)
		}
	}
	clear(ts.list[len(live):])
	ts.list = append(live, weak.Make(t))
}

// Kind returns "memory", the store's kind as observers see it (see
// [Decision]).
func (m *MemoryStore) Kind() string { return "memory" }

// AppendUsage appends to dst, and returns, the usage of each table of m in
// use (one per policy bound, in the order bound): for metrics of how close
// each is to its bound. It locks each shard in turn, briefly; call it at
// scrape time, not per request.
func (m *MemoryStore) AppendUsage(dst []MemoryUsage) []MemoryUsage {
	if m == nil {
		return dst
	}
	m.tables.mu.Lock()
	live := make([]*memTable, 0, len(m.tables.list))
	for _, w := range m.tables.list {
		if t := w.Value(); t != nil {
			live = append(live, t)
		}
	}
	m.tables.mu.Unlock()
	for _, t := range live {
		dst = append(dst, MemoryUsage{Policy: t.policy.name, Keys: t.Len(), MaxKeys: t.perShard * len(t.shards)})
	}
	return dst
}
