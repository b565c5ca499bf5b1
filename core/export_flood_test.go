package core

// This file exposes to the black-box flood tests (package core_test) what
// they check and cannot observe through a Table.

// TableLen returns the entries a MemoryStore table holds.
func TableLen(t Table) int { return t.(*memTable).Len() }

// ForgetCost is the stepper's forgetCost.
func (p *Probe) ForgetCost(st []int64, now int64) int64 { return p.s.forgetCost(st, now) }
