package inflight

// Keys returns the keys in the table.
func (m *Memory) Keys() int {
	n := 0
	for i := range m.shard {
		sh := &m.shard[i]
		sh.mu.Lock()
		n += len(sh.keys)
		sh.mu.Unlock()
	}
	return n
}

// SlotKey returns the key of a Memory slot.
func SlotKey(s *Slot) string { return s.key }
