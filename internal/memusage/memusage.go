// Package memusage keeps the in-memory stores an exporter watches and sums
// their fill level by policy (observe/promobserve, observe/otelobserve).
package memusage

import (
	"slices"
	"sync"

	"github.com/floodgate-go/floodgate/core"
)

// Stores is a set of watched stores. The zero Stores is empty and ready;
// it is safe for concurrent use.
type Stores struct {
	mu   sync.Mutex
	list []*core.MemoryStore
}

// Watch adds m, unless it is nil or watched already.
func (s *Stores) Watch(m *core.MemoryStore) {
	if m == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.Contains(s.list, m) {
		s.list = append(s.list, m)
	}
}

// ByPolicy returns the usage of every table of the watched stores, summed
// by the label of its policy, label(name) (the exporter's: labelcap.Value
// at least, bounded in number by labelcap.Table): two tables of one name,
// or of names labelled alike, are one line, their keys and bounds added,
// as two lines of one label would be a duplicate metric that fails a
// whole scrape. The lines are in the order first seen; Policy is the
// label.
func (s *Stores) ByPolicy(label func(policy string) string) []core.MemoryUsage {
	s.mu.Lock()
	list := slices.Clone(s.list)
	s.mu.Unlock()
	var all []core.MemoryUsage
	for _, m := range list {
		all = m.AppendUsage(all)
	}
	var out []core.MemoryUsage
	at := map[string]int{}
	for _, u := range all {
		u.Policy = label(u.Policy)
		i, ok := at[u.Policy]
		if !ok {
			at[u.Policy] = len(out)
			out = append(out, core.MemoryUsage{Policy: u.Policy})
			i = len(out) - 1
		}
		out[i].Keys += u.Keys
		out[i].MaxKeys += u.MaxKeys
	}
	return out
}
