package core

import (
	"fmt"
	"math"
	"time"
)

// Hybrid is the quota/linear hybrid: a fixed-window quota for clients that
// stay within it, and a linear limit for clients that exhaust it.
//
// A key starts in bursty mode: a fixed window of Window anchored at the
// key's first request, in which up to Quota units pass at any pace; at the
// window's end the quota resets (the next request anchors a new window).
//
// When a client spends its whole quota in a window (its count reaches
// Quota), the key switches to smooth mode: a linear bucket, GCRA with
// interval I = Window/Quota (rounded up to a nanosecond) and burst Quota,
// that starts in debt until the window ends: its theoretical arrival time
// is TAT = windowEnd + (Quota−1)·I, so that nothing more passes before the
// window ends, one unit passes at its end, and after it units come back one
// per I. A client that keeps pushing thus gets Quota per Window, evenly
// spread from the window's end on (one per Window when Quota is 1), instead
// of a fresh burst at every window start. Once the linear bucket has fully
// refilled (TAT ≤ now) the key is back in bursty mode, exactly as a key
// never seen: a new window starts at its next request.
//
// Remaining is Quota − count in bursty mode (0 for a count kept above a
// Quota lowered by [Limiter.SetPolicy]) and ⌊(Quota·I − (TAT−now))/I⌋ in
// smooth mode. ResetAfter is the time to the window's end in bursty mode and
// TAT − now (until fully refilled) in smooth mode. A denied request's
// RetryAfter is exact in both modes: the window's end in bursty mode, TAT +
// cost·I − Quota·I − now in smooth mode, or [Never] when cost exceeds Quota.
//
// A caller whose now is older than what the key has seen is decided more
// strictly, never more leniently: in bursty mode a now before the window's
// start counts against the current window, and in smooth mode TAT − now
// only grows as now shrinks.
//
// A refund in bursty mode gives cost back to the window's count when the
// refunded request was taken in the current window and that window is still
// running (a window that has ended no longer counts it). A refund of a
// request taken in the window that exhausted the quota, made while that
// window is still running and before anything was taken in smooth mode,
// returns the key to bursty mode with the count lowered, so a take followed
// by its refund restores the state exactly. Otherwise a refund in smooth
// mode moves TAT back by cost·I, not below now; a request taken before the
// exhausted window is not refunded.
//
// The limit's quota and window are Quota and Window. The key is exactly a
// key never seen from its window's end (bursty mode) or from TAT (smooth
// mode) on.
//
// Window + Quota·I must not exceed about 36 years (so Window is at most
// about 36 years).
type Hybrid struct {
	// Quota is how many units pass per window in bursty mode, and per
	// Window, evenly spread, in smooth mode.
	Quota int64
	// Window is the length of the fixed window.
	Window time.Duration
}

// Validate reports whether h is usable.
func (h Hybrid) Validate() error { _, err := h.compile(); return err }

func (h Hybrid) value() Algorithm { return h }

func (h Hybrid) compile() (stepper, error) {
	if h.Quota < 1 {
		return nil, fmt.Errorf("core: Hybrid: quota %d must be ≥ 1: %w", h.Quota, ErrInvalidConfig)
	}
	if err := validWindow("Hybrid", h.Window); err != nil {
		return nil, err
	}
	w := int64(h.Window)
	iv := int64(Per(h.Quota, h.Window).Interval())
	tol, ok := mulSpan(h.Quota, iv)
	if !ok || tol > maxSpan-w {
		return nil, fmt.Errorf("core: Hybrid: window %v + quota %d × interval %v exceeds 36 years: %w", h.Window, h.Quota, time.Duration(iv), ErrInvalidConfig)
	}
	return &hybridStep{limit: h.Quota, window: w, interval: iv, tolerance: tol}, nil
}

// Hybrid state words. st[0] is the mode:
//
//	hybridBursty:    st[1] window start, st[2] count (0 < count < Quota);
//	                 the zero state (count 0) is a key never seen.
//	hybridExhausted: smooth, and the window that exhausted the quota may
//	                 still be running: st[1] TAT = windowEnd + (Quota−1)·I
//	                 exactly,
//	                 st[2] that window's start. Nothing has been taken or
//	                 refunded in smooth mode yet.
//	hybridSmooth:    smooth: st[1] TAT, st[2] the exhausted window's start.
const (
	hybridBursty = iota
	hybridExhausted
	hybridSmooth
)

type hybridStep struct {
	noPenalty
	limit, window, interval, tolerance int64
}

func (h *hybridStep) words() int { return 3 }

func (h *hybridStep) quota() (int64, time.Duration) { return h.limit, time.Duration(h.window) }

func (h *hybridStep) take(st []int64, now, cost int64, commit bool) outcome {
	if st[0] != hybridBursty {
		if tat := st[1]; tat > now {
			return h.takeSmooth(st, tat, now, cost, commit)
		}
		// Fully refilled: a key never seen.
		return h.takeBursty(st, now, 0, now, cost, commit)
	}
	start, count := st[1], st[2]
	if count == 0 || now-start >= h.window {
		return h.takeBursty(st, now, 0, now, cost, commit)
	}
	return h.takeBursty(st, start, count, now, cost, commit)
}

// takeBursty decides cost in the window [start, start+Window) that has
// count units taken (count 0: a new window).
func (h *hybridStep) takeBursty(st []int64, start, count, now, cost int64, commit bool) outcome {
	end := start + h.window
	if cost > h.limit-count {
		retry := end - now
		if cost > h.limit {
			retry = int64(Never)
		}
		reset := end - now
		if count == 0 {
			reset = 0
		}
		// A count kept above a Quota lowered since (SetPolicy) leaves
		// nothing, not less than nothing.
		return outcome{remaining: max(h.limit-count, 0), resetAfter: reset, retryAfter: retry}
	}
	count += cost
	if count == h.limit {
		// In debt until the window ends: one unit is back at its end.
		tat := end + h.tolerance - h.interval
		if commit {
			st[0], st[1], st[2] = hybridExhausted, tat, start
		}
		return outcome{allowed: true, resetAfter: tat - now}
	}
	if commit {
		st[0], st[1], st[2] = hybridBursty, start, count
	}
	o := outcome{allowed: true, remaining: h.limit - count}
	if count > 0 { // (a report of cost 0 on an empty window: nothing to reset)
		o.resetAfter = end - now
	}
	return o
}

// takeSmooth is GCRA on tat > now.
func (h *hybridStep) takeSmooth(st []int64, tat, now, cost int64, commit bool) outcome {
	debt := tat - now
	if cost > h.limit {
		return outcome{remaining: nonNeg(h.tolerance-debt) / h.interval, resetAfter: debt, retryAfter: int64(Never)}
	}
	diff := debt + cost*h.interval
	if diff > h.tolerance {
		return outcome{remaining: nonNeg(h.tolerance-debt) / h.interval, resetAfter: debt, retryAfter: diff - h.tolerance}
	}
	if commit {
		st[0], st[1] = hybridSmooth, now+diff
	}
	return outcome{allowed: true, remaining: (h.tolerance - diff) / h.interval, resetAfter: diff}
}

func (h *hybridStep) refund(st []int64, now, taken, until, cost int64) {
	cost = min(cost, h.limit)
	if st[0] == hybridBursty {
		start, count := st[1], st[2]
		if count == 0 || now-start >= h.window || taken < start || taken-start >= h.window {
			return
		}
		if count <= cost {
			clear(st[:3])
			return
		}
		st[2] = count - cost
		return
	}
	tat, start := st[1], st[2]
	if tat <= now || taken < start {
		return
	}
	if st[0] == hybridExhausted && now-start < h.window && taken-start < h.window {
		// The exhausted window is still running: give back to its count.
		if cost == h.limit {
			clear(st[:3])
		} else {
			st[0], st[1], st[2] = hybridBursty, start, h.limit-cost
		}
		return
	}
	// What the take still holds: its cost·I, less what has drained since.
	st[0], st[1] = hybridSmooth, max(tat-min(cost*h.interval, until-now), now)
}

func (h *hybridStep) idleAt(st []int64) int64 {
	switch {
	case st[0] != hybridBursty:
		return st[1]
	case st[2] == 0:
		return math.MinInt64
	default:
		return st[1] + h.window
	}
}
