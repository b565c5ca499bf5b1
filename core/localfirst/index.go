package localfirst

// index is a shard's entries by key: open addressing on the key's hash,
// linear probing over (hash, entry) pairs, at most three quarters full
// (live entries and tombstones). A lookup reads the pair, then the entry
// the decision reads next: a Go map's group control word and slot cost a
// cache line more, which 10,000 keys and a cache shared with other work
// make a miss.
type index struct {
	tab       []pair
	live, old int // entries, and tombstones
}

// pair is one slot of an index: a key's hash and its entry (nil: empty;
// tomb: a dropped entry's).
type pair struct {
	h uint64
	e *entry
}

// tomb marks a slot whose entry was dropped.
var tomb = &entry{}

// slot is h's first slot: the hash's upper bits (its lower bits chose the
// shard).
func (x *index) slot(h uint64) uint64 { return (h >> 32) & uint64(len(x.tab)-1) }

// get returns key's entry (of hash h), nil when it has none.
func (x *index) get(h uint64, key string) *entry {
	if len(x.tab) == 0 {
		return nil
	}
	mask := uint64(len(x.tab) - 1)
	for i := x.slot(h); ; i = (i + 1) & mask {
		p := &x.tab[i]
		switch {
		case p.e == nil:
			return nil
		case p.h == h && p.e != tomb && p.e.key == key:
			return p.e
		}
	}
}

// put adds e, whose key it does not hold.
func (x *index) put(e *entry) {
	if 4*(x.live+x.old+1) > 3*len(x.tab) {
		x.grow()
	}
	mask := uint64(len(x.tab) - 1)
	i := x.slot(e.h)
	for x.tab[i].e != nil && x.tab[i].e != tomb {
		i = (i + 1) & mask
	}
	if x.tab[i].e == tomb {
		x.old--
	}
	x.tab[i] = pair{e.h, e}
	x.live++
}

// drop removes e, if it is there.
func (x *index) drop(e *entry) {
	if len(x.tab) == 0 {
		return
	}
	mask := uint64(len(x.tab) - 1)
	for i := x.slot(e.h); x.tab[i].e != nil; i = (i + 1) & mask {
		if x.tab[i].e == e {
			x.tab[i].e = tomb
			x.live--
			x.old++
			return
		}
	}
}

// grow rebuilds the table without tombstones, twice as large when more
// than half of it is live.
func (x *index) grow() {
	n := max(16, len(x.tab))
	if 2*(x.live+1) > n {
		n *= 2
	}
	old := x.tab
	x.tab, x.live, x.old = make([]pair, n), 0, 0
	for _, p := range old {
		if p.e != nil && p.e != tomb {
			x.put(p.e)
		}
	}
}
