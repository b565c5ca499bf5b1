package core

import "github.com/floodgate-go/floodgate/core/store"

// This file exposes to the black-box flood tests (package core_test) what
// they check and cannot observe through a Table.

// TableLen returns the entries a MemoryStore table holds.
func TableLen(t store.Table) int { return t.(*memTable).Len() }

// ForgetCost is the stepper's forgetCost.
func (p *Probe) ForgetCost(st []int64, now int64) int64 { return p.s.forgetCost(st, now) }

// TableForgetCost returns the forgetCost of key's entry in a MemoryStore
// table at now, or -1 when the table holds no entry for key.
func TableForgetCost(tb store.Table, key string, now int64) int64 {
	t := tb.(*memTable)
	h := t.hash(key)
	s := t.shard(h)
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.arr.Load()
	off, found := t.find(a, h)
	if !found {
		return -1
	}
	st, _ := t.view(s, a, off)
	return t.policy.forgetCost(st, now)
}
