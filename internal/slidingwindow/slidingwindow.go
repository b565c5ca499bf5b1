// Package slidingwindow holds the integer arithmetic of the sliding-window
// counter estimate (core.SlidingWindow): the previous window's weighted
// part and the first instant a cost is admitted. core and the local-first
// store (core/localfirst) decide with the same functions, so that a
// single node of the local-first store decides exactly as the in-memory
// store does.
//
// With windows of length Window aligned to the epoch, prev and curr the
// units admitted in the previous and the current window and elapsed the
// time since the current window started, the units taken in the trailing
// window are estimated as
//
//	⌈prev·(Window − elapsed)/Window⌉ + curr
//
// in 128-bit integer products, never floating point.
package slidingwindow

import "math/bits"

// Counter is one sliding-window limit: at most Limit (≥ 1) units by the
// estimate, windows of Window (> 0) nanoseconds.
type Counter struct {
	Limit, Window int64
}

// Weighted returns ⌈prev·rest/Window⌉ for 0 ≤ prev and 0 < rest ≤ Window:
// the previous window's part of the estimate when rest is the time left in
// the current window, rounded up.
func (c Counter) Weighted(prev, rest int64) int64 {
	hi, lo := bits.Mul64(uint64(prev), uint64(rest))
	q, r := bits.Div64(hi, lo, uint64(c.Window)) // q ≤ prev: no overflow
	if r != 0 {
		q++
	}
	return int64(q)
}

// MinElapsed returns the least elapsed e in [0, Window] from which
// prev·(Window − e)/Window ≤ room (room ≥ 0): Window when none in the
// window.
func (c Counter) MinElapsed(prev, room int64) int64 {
	if prev <= room {
		return 0
	}
	// Window − e ≤ ⌊room·Window/prev⌋, which is < Window as room < prev.
	hi, lo := bits.Mul64(uint64(room), uint64(c.Window))
	q, _ := bits.Div64(hi, lo, uint64(prev))
	return c.Window - int64(q)
}

// FirstAdmit returns the first instant from start (the current window's
// start) at which cost (≤ Limit) is admitted if nothing else is taken,
// given the previous and current windows' counts.
func (c Counter) FirstAdmit(prev, curr, start, cost int64) int64 {
	if room := c.Limit - curr - cost; room >= 0 {
		if e := c.MinElapsed(prev, room); e < c.Window {
			return start + e
		}
	}
	// In the next window prev is curr and curr is 0.
	if e := c.MinElapsed(curr, c.Limit-cost); e < c.Window {
		return start + c.Window + e
	}
	return start + 2*c.Window
}
