package localfirst

import (
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/store"
	"github.com/floodgate-go/floodgate/internal/slidingwindow"
)

// slot is one window's count as a node sees it: global is what Redis
// returned at the last sync that covered it, inflight what a sync in
// progress pushed, delta what the node admitted since (negative after a
// refund). The node's view of the window is their sum.
type slot struct {
	idx, global, inflight, delta int64
	own                          int64 // what this node admitted in the window, less refunds
	// At the last read of the window's counter: nodes is how many nodes
	// were registered in it (this one included), claims what the other
	// nodes' live claims held, div the divisor of this node's claim (0: no
	// claim made) and claim the claim.
	claims, claim int64
	nodes, div    int32 // at most MaxNodes: the slot fills one cache line
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
	claim      int64 // this node's claim on it, as made
	// others is the most other nodes seen registered in the current or
	// the previous window; -1 when none was seen in the previous one (no
	// evidence of how many nodes share the key).
	others int64
}

// look reads into v the view of c at now from ws (two slots) and newest, the
// newest window index this limit has seen: a now older than that window
// is decided in it, as the in-memory store does.
func (c *lim) look(v *view, ws []slot, now, newest int64) {
	idx := spanIndex(now, c.window)
	eff := now
	if idx < newest {
		idx, eff = newest, newest*c.window
	}
	*v = view{idx: idx, eff: eff, others: -1}
	if s := at(ws, idx-1, false); s != nil {
		if c.kind == kindSliding {
			v.prev = min(s.count(), c.limit)
		}
		if s.nodes > 0 {
			v.others = int64(s.nodes) - 1
		}
	}
	if s := at(ws, idx, false); s != nil {
		v.curr, v.currG, v.unconf = min(s.count(), c.limit), min(s.global, c.limit), s.unconfirmed()
		v.claims, v.div, v.claim = s.claims, int64(s.div), s.claim
		if v.others >= 0 && s.nodes > 0 {
			v.others = max(v.others, int64(s.nodes)-1)
		}
	}
}

// room is what a window's limit leaves at now once the previous window's
// part is counted (the limit itself for a FixedWindow): what the claims on
// the current window share.
func (c *lim) room(v *view) int64 {
	return c.limit - c.used(v, v.prev, 0)
}

// used is the estimate of units taken in the trailing window, from the
// counts prev and curr.
func (c *lim) used(v *view, prev, curr int64) int64 {
	if c.kind != kindSliding {
		return curr
	}
	start := v.idx * c.window
	return curr + c.sw().Weighted(prev, start+c.window-v.eff)
}

// sw is c's sliding-window arithmetic, core's own.
func (c *lim) sw() slidingwindow.Counter {
	return slidingwindow.Counter{Limit: c.limit, Window: c.window}
}

// decide writes into o the outcome of taking cost on v (cost 0 reports the
// state as it stands), and returns whether the share alone denied it. With div ≥ 1 the
// node may also hold no more unconfirmed units in the window than
// ⌊(room − confirmed count − claims) / div⌋, its share of what it knows
// remains (claims: the other nodes' live claims, when this node's own is
// live), and no more than cap when cap ≥ 0; a denial by that share alone
// is retried after retry. div 0 checks the limit alone.
func (c *lim) decide(o *store.Outcome, v *view, now, cost, div, claims, cap, retry int64) bool {
	sliding := c.kind == kindSliding
	start := v.idx * c.window
	end := start + c.window
	avail := c.limit - c.used(v, v.prev, v.curr)
	shareOK := true
	if div > 0 && cost > 0 {
		share := (c.room(v) - v.currG - claims) / div
		if cap >= 0 {
			share = min(share, cap)
		}
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
	case !sliding && held > 0:
		reset = end - now
	case sliding && held > 0:
		reset = start + 2*c.window - now
	case sliding && v.prev > 0:
		reset = end - now
	}
	if cost <= avail && shareOK {
		*o = store.Outcome{Allowed: true, Remaining: avail - cost, ResetAfter: time.Duration(reset)}
		return false
	}
	*o = store.Outcome{Remaining: max(avail, 0), ResetAfter: time.Duration(reset)}
	switch {
	case cost > c.limit:
		o.RetryAfter = core.Never
	case cost > avail && !sliding:
		o.RetryAfter = time.Duration(end - now)
	case cost > avail:
		o.RetryAfter = time.Duration(c.sw().FirstAdmit(v.prev, v.curr, start, cost) - now)
	}
	if cost <= avail {
		// Denied by the share alone: the next round may refresh the view.
		o.RetryAfter = time.Duration(retry)
		return true
	}
	return false
}
