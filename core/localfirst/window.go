package localfirst

import (
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/store"
	"github.com/floodgate-go/floodgate/internal/slidingwindow"
)

// counter is one limit of a bound policy: a FixedWindow (aligned) or a
// SlidingWindow, both counts per epoch-aligned window.
type counter struct {
	limit, window int64
	sliding       bool
}

// slot is one window's count as a node sees it: global is what Redis
// returned at the last sync that covered it, inflight what a sync in
// progress pushed, delta what the node admitted since (negative after a
// refund). The node's view of the window is their sum.
type slot struct {
	idx, global, inflight, delta int64
	// At the last read of the window's counter: nodes is how many nodes
	// were registered in it (this one included), claims what the other
	// nodes' live claims held, and div the divisor of this node's claim
	// (0: no claim made).
	nodes, claims, div int64
}

func (s *slot) count() int64 { return max(s.global+s.inflight+s.delta, 0) }

// unconfirmed is what the node admitted in the window that no round has
// confirmed yet, less what it gave back (negative when it gave back more
// than it admitted since).
func (s *slot) unconfirmed() int64 { return s.inflight + s.delta }

// at returns the slot of window idx in ws (two slots, by idx parity), reset
// to an empty window when it held another one and reset is set; nil when
// it holds another window and reset is not set.
func at(ws []slot, idx int64, reset bool) *slot {
	s := &ws[idx&1]
	if s.idx == idx {
		return s
	}
	if !reset {
		return nil
	}
	*s = slot{idx: idx}
	return s
}

// spanIndex returns ⌊t/w⌋, rounded towards −∞.
func spanIndex(t, w int64) int64 {
	q := t / w
	if t%w < 0 {
		q--
	}
	return q
}

// view is what deciding one limit needs: the window a request falls in and
// its counts.
type view struct {
	idx        int64 // current window index
	eff        int64 // instant the estimate is taken at (now, or the window's start)
	prev, curr int64 // counts of the previous (sliding only) and current window
	currG      int64 // the current window's confirmed count, for the share
	unconf     int64 // this node's unconfirmed units in the current window
	claims     int64 // the other nodes' claims on the current window
	div        int64 // the divisor of this node's claim on it, 0 if none
	// others is the most other nodes seen registered in the current or
	// the previous window; -1 when none was seen in the previous one (no
	// evidence of how many nodes share the key).
	others int64
}

// look reads into v the view of c at now from ws (two slots) and newest, the
// newest window index this limit has seen: a now older than that window
// is decided in it, as the in-memory store does.
func (c *counter) look(v *view, ws []slot, now, newest int64) {
	idx := spanIndex(now, c.window)
	eff := now
	if idx < newest {
		idx, eff = newest, newest*c.window
	}
	*v = view{idx: idx, eff: eff, others: -1}
	if s := at(ws, idx-1, false); s != nil {
		if c.sliding {
			v.prev = min(s.count(), c.limit)
		}
		if s.nodes > 0 {
			v.others = s.nodes - 1
		}
	}
	if s := at(ws, idx, false); s != nil {
		v.curr, v.currG, v.unconf = min(s.count(), c.limit), min(s.global, c.limit), s.unconfirmed()
		v.claims, v.div = s.claims, s.div
		if v.others >= 0 && s.nodes > 0 {
			v.others = max(v.others, s.nodes-1)
		}
	}
}

// room is what a window's limit leaves at now once the previous window's
// part is counted (the limit itself for a FixedWindow): what the claims on
// the current window share.
func (c *counter) room(v *view) int64 {
	return c.limit - c.used(v, v.prev, 0)
}

// used is the estimate of units taken in the trailing window, from the
// counts prev and curr.
func (c *counter) used(v *view, prev, curr int64) int64 {
	if !c.sliding {
		return curr
	}
	start := v.idx * c.window
	return curr + c.sw().Weighted(prev, start+c.window-v.eff)
}

// sw is c's sliding-window arithmetic, core's own.
func (c *counter) sw() slidingwindow.Counter {
	return slidingwindow.Counter{Limit: c.limit, Window: c.window}
}

// decide returns the outcome of taking cost on v (cost 0 reports the state
// as it stands). With div ≥ 1 the node may also hold no more unconfirmed
// units in the window than ⌊(room − confirmed count − claims) / div⌋, its
// share of what it knows remains (claims: the other nodes' live claims,
// when this node's own is live); a denial by that share alone is retried
// after retry. div 0 checks the limit alone.
func (c *counter) decide(v *view, now, cost, div, claims, retry int64) store.Outcome {
	start := v.idx * c.window
	end := start + c.window
	avail := c.limit - c.used(v, v.prev, v.curr)
	shareOK := true
	if div > 0 && cost > 0 {
		share := (c.room(v) - v.currG - claims) / div
		shareOK = v.unconf+cost <= share
	}
	// ResetAfter counts the units the window will hold: with an admitted
	// cost, or as it stands (a denial, or a report of cost 0).
	held := v.curr
	if cost <= avail && shareOK {
		held += cost
	}
	var reset int64
	switch {
	case !c.sliding && held > 0:
		reset = end - now
	case c.sliding && held > 0:
		reset = start + 2*c.window - now
	case c.sliding && v.prev > 0:
		reset = end - now
	}
	if cost <= avail && shareOK {
		return store.Outcome{Allowed: true, Remaining: avail - cost, ResetAfter: time.Duration(reset)}
	}
	o := store.Outcome{Remaining: max(avail, 0), ResetAfter: time.Duration(reset)}
	switch {
	case cost > c.limit:
		o.RetryAfter = core.Never
	case cost > avail && !c.sliding:
		o.RetryAfter = time.Duration(end - now)
	case cost > avail:
		o.RetryAfter = time.Duration(c.sw().FirstAdmit(v.prev, v.curr, start, cost) - now)
	}
	if cost <= avail {
		// Denied by the share alone: the next round may refresh the view.
		o.RetryAfter = time.Duration(retry)
	}
	return o
}
