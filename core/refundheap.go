package core

// untilEntry is an entry of an untilHeap: a key, and the instant from
// which it may go.
type untilEntry[K comparable] struct {
	until int64
	key   K
}

// untilHeap is a min-heap of keys by the instant they may go: a full log
// (the refund ledger, the evicted keys' marks) finds the entries that may
// go without looking at the others. (container/heap would allocate for
// each entry pushed, boxed in an interface.)
type untilHeap[K comparable] []untilEntry[K]

// push adds key, which may go from until.
func (h *untilHeap[K]) push(until int64, key K) {
	*h = append(*h, untilEntry[K]{until: until, key: key})
	a := *h
	i := len(a) - 1
	for i > 0 {
		up := (i - 1) / 2
		if a[up].until <= a[i].until {
			break
		}
		a[up], a[i] = a[i], a[up]
		i = up
	}
}

// due reports whether the soonest entry may go at now.
func (h untilHeap[K]) due(now int64) bool { return len(h) > 0 && h[0].until <= now }

// pop removes and returns the entry of the soonest until; h is not empty.
func (h *untilHeap[K]) pop() untilEntry[K] {
	a := *h
	top := a[0]
	last := len(a) - 1
	a[0] = a[last]
	a[last] = untilEntry[K]{} // a key that holds memory (a pointer) is let go
	a = a[:last]
	for i := 0; ; {
		l, least := 2*i+1, i
		if l < len(a) && a[l].until < a[least].until {
			least = l
		}
		if r := l + 1; r < len(a) && a[r].until < a[least].until {
			least = r
		}
		if least == i {
			break
		}
		a[i], a[least] = a[least], a[i]
		i = least
	}
	*h = a
	return top
}
