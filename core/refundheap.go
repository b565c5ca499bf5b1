package core

// ledgerEntry is a refund ledger's entry: a decision refunded, and the
// instant from which its entry may go.
type ledgerEntry struct {
	until int64
	id    decisionName
}

// ledgerHeap is a min-heap of ledger entries by until: a full ledger
// shard finds the entries that may go without looking at the others.
// (container/heap would allocate for each entry pushed, boxed in an
// interface.)
type ledgerHeap []ledgerEntry

// push adds e.
func (h *ledgerHeap) push(e ledgerEntry) {
	*h = append(*h, e)
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

// pop removes and returns the entry of the soonest until; h is not empty.
func (h *ledgerHeap) pop() ledgerEntry {
	a := *h
	top := a[0]
	last := len(a) - 1
	a[0] = a[last]
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
