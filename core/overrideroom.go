package core

// room makes room for one more entry (s.mu held). It forgets an entry of
// a key decided by the default policy, the soonest to expire (an expired
// one first); failing that, an expired entry of a key with an override.
// It never forgets a live entry of a key with an override: a flood of
// keys (each a default key, since the provider decides who has an
// override) would otherwise forget a restricted tenant's, whose key,
// unknown again, goes to the default when the provider next fails. It
// reports false when no entry may go: the key is then not cached.
//
// Only the entries that may go are looked at, in order of expiry: a walk
// of the shard's entries for one of the default's cost each key the
// provider has no override for (one a client makes up) a look at every
// entry of a shard full of tenants' overrides, under its lock, on every
// request.
func (s *overrideShard) room(now int64) bool {
	if len(s.m) < s.max {
		return true
	}
	for len(s.defs) > 0 {
		if e := s.defs.pop().key; s.holds(e) {
			delete(s.m, e.key)
			return true
		}
	}
	for s.overs.due(now) {
		if e := s.overs.pop().key; s.holds(e) {
			delete(s.m, e.key)
			return true
		}
	}
	return false
}

// holds reports whether e, taken from defs or overs, is still its key's
// entry: one replaced (its key resolved again) or forgotten since is
// stale, skipped.
func (s *overrideShard) holds(e *overrideEntry) bool {
	s.visited++
	return s.m[e.key] == e
}

// track adds e, answered and in m, to defs or overs by its limiter (s.mu
// held). An entry put back in m (an answer not given, see resolve) is
// added again: its earlier record may have gone as stale meanwhile.
func (s *overrideShard) track(e *overrideEntry) {
	s.heapOf(e).push(e.exp, e)
	if len(s.defs)+len(s.overs) > 2*s.max {
		s.rebuild()
	}
}

// rebuild makes defs and overs anew from m, without their stale records:
// at most once every max answers, so that its cost is spread over them.
func (s *overrideShard) rebuild() {
	clear(s.defs)
	clear(s.overs)
	s.defs, s.overs = s.defs[:0], s.overs[:0]
	for _, e := range s.m {
		if e.done {
			s.heapOf(e).push(e.exp, e)
		}
	}
}

// heapOf returns the heap an answered e is kept in: defs for a key the
// default decides, overs for one with an override.
func (s *overrideShard) heapOf(e *overrideEntry) *untilHeap[*overrideEntry] {
	if e.lim == s.def {
		return &s.defs
	}
	return &s.overs
}
