package core

import (
	"fmt"
	"time"
)

// FixedWindow admits at most Quota units per window of length Window.
//
// By default windows are aligned to the Unix epoch: the window holding the
// instant t starts at t − t mod Window (rounded towards the past for instants
// before 1970), so every key changes window at the same instants. With
// Anchored, a key's window starts at its first admitted request after its
// previous window ended, so each key has its own phase, and a key that is
// idle for a while gets a whole fresh window at its next request.
//
// It keeps two words per key: the units taken in the current window and the
// window's start. A window holding nothing is the same as a key never seen.
//
// Windows are independent, so two consecutive windows may admit 2·Quota
// units within an arbitrarily short interval around the boundary between
// them: Quota just before it and Quota just after. Use [SlidingLog],
// [SlidingWindow] or [GCRA] where that burst matters.
//
// A denied request can pass when the window ends: RetryAfter is the exact
// time until then, or [Never] when cost exceeds Quota. ResetAfter is the time
// until the window ends (0 when it holds nothing); Remaining is Quota minus
// what the window holds.
//
// A caller whose now is older than the current window's start (it raced a
// newer caller that started the window) is counted in the current window,
// never in a past one, so it is granted no more than the newest caller would
// be.
//
// Refund gives cost back only when the taken instant lies in the current
// window: cost taken in a window that has ended is not credited to a later
// one. A take decided at a stale now, counted in a window that started after
// it, is therefore not refunded either: refunds err towards admitting less.
// A refund that empties the window keeps its start, until the window's
// end: a caller older than that start is still counted in it, never in a
// past window (time does not move back), while a caller at or after it is
// decided as for a key never seen.
type FixedWindow struct {
	// Quota is the most units a window admits; it must be ≥ 1.
	Quota int64
	// Window is the length of a window, in (0, 36 years].
	Window time.Duration
	// Anchored starts each key's window at its first admitted request
	// instead of aligning windows to the Unix epoch.
	Anchored bool
}

// Validate reports whether f is usable.
func (f FixedWindow) Validate() error { _, err := f.compile(); return err }

func (f FixedWindow) value() Algorithm { return f }

func (f FixedWindow) compile() (stepper, error) {
	if f.Quota < 1 {
		return nil, fmt.Errorf("core: FixedWindow: quota %d must be ≥ 1: %w", f.Quota, ErrInvalidConfig)
	}
	if err := validWindow("FixedWindow", f.Window); err != nil {
		return nil, err
	}
	return &fixedWindowStep{limit: f.Quota, window: int64(f.Window), anchored: f.Anchored}, nil
}

// fixedWindowStep keeps st[0], the units taken in the current window, and
// st[1], the window's start. A count of 0 means no window: a fresh key
// (start 0), or one whose window refunds emptied (start kept).
type fixedWindowStep struct {
	noPenalty
	limit, window int64
	anchored      bool
}

func (f *fixedWindowStep) words() int { return 2 }

func (f *fixedWindowStep) quota() (int64, time.Duration) { return f.limit, time.Duration(f.window) }

// current returns the count and start of the window a request at now is
// counted in: the stored one while it lasts (also for a now before its
// start), else a new, empty one.
func (f *fixedWindowStep) current(st []int64, now int64) (count, start int64) {
	count, start = st[0], st[1]
	switch {
	case count > 0 && now-start < f.window:
		return min(count, f.limit), start
	case count <= 0 && start != 0 && now < start:
		// A window refunds emptied: an older caller is counted in it.
		return 0, start
	}
	if f.anchored {
		return 0, now
	}
	return 0, alignedStart(now, f.window)
}

func (f *fixedWindowStep) take(st []int64, now, cost int64, commit bool) outcome {
	count, start := f.current(st, now)
	end := start + f.window
	if cost > f.limit-count {
		o := outcome{remaining: f.limit - count, retryAfter: end - now}
		if count > 0 {
			o.resetAfter = end - now
		}
		if cost > f.limit {
			o.retryAfter = int64(Never)
		}
		return o
	}
	if commit {
		st[0], st[1] = count+cost, start
	}
	o := outcome{allowed: true, remaining: f.limit - count - cost}
	if count+cost > 0 { // (a report of cost 0 on an empty window: nothing to reset)
		o.resetAfter = end - now
	}
	return o
}

func (f *fixedWindowStep) refund(st []int64, _, taken, _, cost int64) {
	count, start := st[0], st[1]
	if count <= 0 || taken < start || taken-start >= f.window {
		return
	}
	st[0] = count - min(cost, count) // an emptied window keeps its start
}

func (f *fixedWindowStep) idleAt(st []int64) int64 {
	if st[0] <= 0 && st[1] == 0 {
		return 0
	}
	return st[1] + f.window
}

// alignedStart returns the start of the epoch-aligned span of length w
// holding t: t − t mod w, rounded towards −∞.
func alignedStart(t, w int64) int64 {
	m := t % w
	if m < 0 {
		m += w
	}
	return t - m
}

// spanIndex returns ⌊t/w⌋, rounded towards −∞.
func spanIndex(t, w int64) int64 {
	q := t / w
	if t%w < 0 {
		q--
	}
	return q
}
