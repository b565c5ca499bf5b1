package core

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// TopKeysOptions configures the heavy-hitter sketch of [WithTopKeys]. The
// zero TopKeysOptions keeps the defaults.
type TopKeysOptions struct {
	// Capacity is how many keys the sketch keeps per interval (default
	// 256, at most 65,536).
	Capacity int
	// Span is how far back [Limiter.TopKeys] looks (default 5 minutes),
	// in Intervals intervals (default 5, at most 60) of Span/Intervals
	// each, aligned on the Unix epoch: the keys of the current interval
	// and of the Intervals-1 before it are counted.
	Span      time.Duration
	Intervals int
	// MaxKeyBytes is the longest key kept whole (default 128, at most
	// 4096): a longer key is counted under its first MaxKeyBytes bytes,
	// reported with Truncated set.
	MaxKeyBytes int
}

// The defaults of [TopKeysOptions].
const (
	DefaultTopCapacity    = 256
	DefaultTopSpan        = 5 * time.Minute
	DefaultTopIntervals   = 5
	DefaultTopMaxKeyBytes = 128
)

// WithTopKeys makes the limiter count its takes per key in a bounded
// heavy-hitter sketch, whatever its store, for [Limiter.TopKeys]: the
// heaviest keys of the last few minutes, admitted and denied counted
// apart.
//
// The sketch is Space-Saving (Metwally, Agrawal and El Abbadi, 2005), one
// of Capacity keys per interval: a key that made more than 1/Capacity of
// an interval's takes is always among that interval's keys, and no flood
// of distinct keys evicts it; a key's count is never below its true count,
// and above it by at most that interval's takes / Capacity (the Error
// reported). It holds the keys as the limiter is given them (hash
// personal keys first, as the keyfunc package does), and at most
// Intervals × Capacity keys of at most MaxKeyBytes bytes: about
// Intervals × Capacity × (120 + MaxKeyBytes) bytes, about 320 kB with
// the defaults (315 kB with keys of 128 bytes: BenchmarkTopKeysMemory),
// allocated as keys arrive.
//
// Every take then holds one mutex of the sketch for a map lookup and a
// heap step (and copies the key only when it enters the sketch); a limiter
// without WithTopKeys pays nothing. [Limiter.TopKeys] holds that mutex only
// to copy one interval's keys at a time (at most Capacity entries), and
// merges and sorts them outside it. Peeks, refunds and failed takes are
// not counted, but for a take whose caller went away during the store's
// call (counted as Abandoned: the store may have applied it); a take
// counts 1 whatever its cost.
func WithTopKeys(o TopKeysOptions) Option {
	return func(c *limiterConfig) { c.top = &o }
}

// Top is what [Limiter.TopKeys] reports.
type Top struct {
	// From and To bound the time counted: from the start of the oldest
	// interval counted to the end of the current one.
	From, To time.Time
	// Takes is the number of takes counted in that time.
	Takes int64
	// Keys are the heaviest keys, by Count, heaviest first.
	Keys []KeyCount
}

// KeyCount is one key of a [Top].
type KeyCount struct {
	// Key is the key, its first MaxKeyBytes bytes when Truncated.
	Key       string
	Truncated bool
	// Count is an upper bound of the key's takes in the time counted:
	// Admitted + Denied + Abandoned + Error.
	Count int64
	// Admitted, Denied and Abandoned are the takes counted for the key
	// since it (last) entered the sketch: they are exact, but miss what
	// it made before. Abandoned are the takes whose caller went away
	// (its context canceled) before the store answered, which the store
	// may have applied (see [VerdictAbandoned]).
	Admitted, Denied, Abandoned int64
	// Error bounds what Count may overstate: it is what the key inherited
	// from the keys it displaced.
	Error int64
}

// heavyHitters is the sketch of [WithTopKeys].
type heavyHitters struct {
	opts  TopKeysOptions
	width int64 // nanoseconds per interval

	mu      sync.Mutex
	windows []ssWindow // ring, by interval number modulo Intervals
	newest  int64      // the newest interval number seen
	long    []byte     // a truncated key as the sketch keeps it, built to look it up without a copy

	merging func() // tests: called by top as it merges an interval, the lock released
}

// ssWindow is the Space-Saving summary of one interval.
type ssWindow struct {
	n     int64 // interval number
	takes int64
	index map[string]int32 // key → position in heap
	heap  []ssEntry        // min-heap by count
}

type ssEntry struct {
	key                         string
	truncated                   bool
	count, err                  int64
	admitted, denied, abandoned int64
}

// takeKind is how a take the sketch counts ended.
type takeKind uint8

const (
	takeDenied takeKind = iota
	takeAdmitted
	takeAbandoned
)

func newHeavyHitters(o TopKeysOptions) (*heavyHitters, error) {
	if o.Capacity == 0 {
		o.Capacity = DefaultTopCapacity
	}
	if o.Span == 0 {
		o.Span = DefaultTopSpan
	}
	if o.Intervals == 0 {
		o.Intervals = DefaultTopIntervals
	}
	if o.MaxKeyBytes == 0 {
		o.MaxKeyBytes = DefaultTopMaxKeyBytes
	}
	if o.Capacity < 1 || o.Capacity > 1<<16 || o.Intervals < 1 || o.Intervals > 60 ||
		o.MaxKeyBytes < 1 || o.MaxKeyBytes > 4096 || o.Span < time.Duration(o.Intervals)*time.Millisecond || o.Span > 24*time.Hour {
		return nil, fmt.Errorf("core: WithTopKeys(%+v): want Capacity 1 to 65536, Intervals 1 to 60, MaxKeyBytes 1 to 4096, Span from 1 ms per interval to 24 h: %w",
			o, ErrInvalidConfig)
	}
	h := &heavyHitters{opts: o, width: int64(o.Span) / int64(o.Intervals), windows: make([]ssWindow, o.Intervals)}
	for i := range h.windows {
		h.windows[i].n = -1
	}
	return h, nil
}

// add counts one decided take of key at the instant at (Unix
// nanoseconds).
func (h *heavyHitters) add(key string, at int64, admitted bool) {
	kind := takeDenied
	if admitted {
		kind = takeAdmitted
	}
	h.count(key, at, kind)
}

// count counts one take of key, ended as kind, at the instant at.
func (h *heavyHitters) count(key string, at int64, kind takeKind) {
	n := at / h.width
	h.mu.Lock()
	defer h.mu.Unlock()
	if n <= h.newest-int64(len(h.windows)) {
		return // older than every interval kept (a clock that stepped back)
	}
	h.newest = max(h.newest, n)
	w := &h.windows[n%int64(len(h.windows))]
	if w.n != n {
		w.n, w.takes = n, 0
		if w.index == nil {
			w.index = make(map[string]int32)
		}
		clear(w.index)
		w.heap = w.heap[:0]
	}
	w.takes++
	truncated := len(key) > h.opts.MaxKeyBytes
	var i int32
	var ok bool
	if truncated {
		// Kept as its first MaxKeyBytes bytes and a 0 byte: one byte
		// longer than any key kept whole, so told from them all. Built in
		// h.long: a lookup by string(h.long) copies nothing.
		h.long = append(append(h.long[:0], key[:h.opts.MaxKeyBytes]...), 0)
		i, ok = w.index[string(h.long)]
	} else {
		i, ok = w.index[key]
	}
	if ok {
		e := &w.heap[i]
		e.count++
		countTake(e, kind)
		w.down(int(i))
		return
	}
	// The key enters the sketch: a copy of its own (the caller's key may
	// be part of a larger string, which it would keep alive).
	if truncated {
		key = string(h.long)
	} else {
		key = strings.Clone(key)
	}
	if len(w.heap) < h.opts.Capacity {
		w.heap = append(w.heap, ssEntry{key: key, truncated: truncated, count: 1})
		i := len(w.heap) - 1
		countTake(&w.heap[i], kind)
		w.index[key] = int32(i)
		w.up(i)
		return
	}
	// Space-Saving: the new key displaces the least counted one and
	// inherits its count, as its error.
	e := &w.heap[0]
	delete(w.index, e.key)
	*e = ssEntry{key: key, truncated: truncated, err: e.count, count: e.count + 1}
	countTake(e, kind)
	w.index[key] = 0
	w.down(0)
}

func countTake(e *ssEntry, kind takeKind) {
	switch kind {
	case takeAdmitted:
		e.admitted++
	case takeDenied:
		e.denied++
	default:
		e.abandoned++
	}
}

func (w *ssWindow) swap(i, j int) {
	w.heap[i], w.heap[j] = w.heap[j], w.heap[i]
	w.index[w.heap[i].key] = int32(i)
	w.index[w.heap[j].key] = int32(j)
}

func (w *ssWindow) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if w.heap[p].count <= w.heap[i].count {
			return
		}
		w.swap(i, p)
		i = p
	}
}

func (w *ssWindow) down(i int) {
	for {
		c := 2*i + 1
		if c >= len(w.heap) {
			return
		}
		if c+1 < len(w.heap) && w.heap[c+1].count < w.heap[c].count {
			c++
		}
		if w.heap[i].count <= w.heap[c].count {
			return
		}
		w.swap(i, c)
		i = c
	}
}

// top returns up to k of the heaviest keys of the intervals that end
// after now - Span, now in Unix nanoseconds.
func (h *heavyHitters) top(k int, now int64) Top {
	cur := now / h.width
	first := cur - int64(len(h.windows)) + 1
	t := Top{From: time.Unix(0, first*h.width), To: time.Unix(0, (cur+1)*h.width)}
	merged := map[string]*KeyCount{}
	// One window at a time is copied under the lock and merged outside
	// it: every take waits for the lock, and a merge of every window
	// under it (up to 60 × 65,536 keys) held them for seconds.
	var buf []ssEntry
	for i := range h.windows {
		h.mu.Lock()
		w := &h.windows[i]
		if w.n < first || w.n > cur {
			h.mu.Unlock()
			continue
		}
		t.Takes += w.takes
		buf = append(buf[:0], w.heap...)
		h.mu.Unlock()
		if h.merging != nil {
			h.merging()
		}
		for j := range buf {
			e := &buf[j]
			m := merged[e.key]
			if m == nil {
				m = &KeyCount{Key: e.key, Truncated: e.truncated}
				if e.truncated {
					m.Key = e.key[:len(e.key)-1]
				}
				merged[e.key] = m
			}
			m.Count += e.count
			m.Error += e.err
			m.Admitted += e.admitted
			m.Denied += e.denied
			m.Abandoned += e.abandoned
		}
	}
	t.Keys = make([]KeyCount, 0, len(merged))
	for _, m := range merged {
		t.Keys = append(t.Keys, *m)
	}
	slices.SortFunc(t.Keys, func(a, b KeyCount) int {
		// A total order (a key kept whole before its truncated namesake):
		// ties come out the same way every call, whatever the map's order.
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Key, b.Key), cmp.Compare(btoi(a.Truncated), btoi(b.Truncated)))
	})
	if k >= 0 && len(t.Keys) > k {
		t.Keys = t.Keys[:k:k]
	}
	return t
}

// TopKeys returns up to n of the heaviest keys of the last Span (see
// [WithTopKeys]), heaviest first, on the limiter's clock, and true; the
// zero Top and false when the limiter has no sketch. A negative n means
// all the sketch holds.
func (l *Limiter) TopKeys(n int) (Top, bool) {
	if l == nil || l.top == nil {
		return Top{}, false
	}
	return l.top.top(n, l.now()), true
}
