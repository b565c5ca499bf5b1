package redisinflight

import (
	"container/heap"
	"time"
)

// The orders a lease of the lost-lease table is kept in within its set
// (indexes of lostSet.orders and lost.links): all the set's leases, and
// those with a tombstone, each oldest first.
const (
	allLost = iota
	tombLost
)

// lostLink is a lease's place in one order of its set.
type lostLink struct{ prev, next *lost }

// lostList is one order of a set's leases, oldest first.
type lostList struct{ first, last *lost }

// push appends x to s's order o.
func (s *lostSet) push(x *lost, o int) {
	ls := &s.orders[o]
	x.links[o] = lostLink{prev: ls.last}
	if ls.last != nil {
		ls.last.links[o].next = x
	} else {
		ls.first = x
	}
	ls.last = x
}

// unlink takes x out of s's order o.
func (s *lostSet) unlink(x *lost, o int) {
	ls, lk := &s.orders[o], x.links[o]
	if lk.prev != nil {
		lk.prev.links[o].next = lk.next
	} else {
		ls.first = lk.next
	}
	if lk.next != nil {
		lk.next.links[o].prev = lk.prev
	} else {
		ls.last = lk.prev
	}
	x.links[o] = lostLink{}
}

// lostHeap is the remembered leases, a min-heap by the instant each has
// surely ended (lost.ends), each knowing its place (lost.at): a full
// table finds the leases surely ended without looking at the others, and
// a lease forgotten leaves the heap with it (no stale entry: the heap
// holds the table's leases and no more). It serves container/heap, whose
// interface a *lost goes through without an allocation.
type lostHeap []*lost

// Len is the leases in the heap.
func (h lostHeap) Len() int { return len(h) }

// Less orders the leases by when they have surely ended.
func (h lostHeap) Less(i, j int) bool { return h[i].ends.Before(h[j].ends) }

// Swap swaps two leases and their places.
func (h lostHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].at, h[j].at = i, j
}

// Push appends x, a *lost (for container/heap).
func (h *lostHeap) Push(x any) {
	e := x.(*lost)
	e.at = len(*h)
	*h = append(*h, e)
}

// Pop removes and returns the last lease (for container/heap).
func (h *lostHeap) Pop() any {
	a := *h
	e := a[len(a)-1]
	a[len(a)-1] = nil
	*h = a[:len(a)-1]
	e.at = -1
	return e
}

// due returns the lease that ends soonest if it has surely ended by now,
// nil if none has.
func (h lostHeap) due(now time.Time) *lost {
	if len(h) == 0 || h[0].ends.After(now) {
		return nil
	}
	return h[0]
}

// add puts x in the heap.
func (h *lostHeap) add(x *lost) { heap.Push(h, x) }

// remove takes x out of the heap.
func (h *lostHeap) remove(x *lost) { heap.Remove(h, x.at) }
