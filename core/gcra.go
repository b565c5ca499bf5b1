package core

import (
	"fmt"
	"time"
)

// GCRA is the generic cell rate algorithm: requests are spaced by the
// emission interval I = Rate.Period/Rate.Count (rounded up to a nanosecond),
// with Burst of them allowed at once.
//
// It keeps one word per key, the theoretical arrival time TAT. A request of
// cost c at now moves it to TAT' = max(TAT, now) + c·I and is admitted when
// TAT' − now ≤ Burst·I. Over any interval T it admits at most Burst +
// ⌈T/I⌉ units.
//
// A caller whose now is older than what the key has seen is decided more
// strictly, never more leniently: max(TAT, now) − now only grows as now
// shrinks.
type GCRA struct {
	Rate Rate
	// Burst is how many units may pass at once; 0 means Rate.Count.
	Burst int64
}

// WithDefaults returns g with a zero Burst replaced by Rate.Count.
func (g GCRA) WithDefaults() GCRA {
	if g.Burst == 0 {
		g.Burst = g.Rate.Count
	}
	return g
}

// Validate reports whether g is usable.
func (g GCRA) Validate() error { _, err := g.compile(); return err }

func (g GCRA) value() Algorithm { return g }

func (g GCRA) compile() (stepper, error) {
	if err := g.Rate.validate("GCRA"); err != nil {
		return nil, err
	}
	burst := g.WithDefaults().Burst
	if burst < 1 {
		return nil, fmt.Errorf("core: GCRA: burst %d must be ≥ 1: %w", g.Burst, ErrInvalidConfig)
	}
	iv := int64(g.Rate.Interval())
	tol, ok := mulSpan(burst, iv)
	if !ok {
		return nil, fmt.Errorf("core: GCRA: burst %d × interval %v exceeds 36 years: %w", burst, time.Duration(iv), ErrInvalidConfig)
	}
	return newGCRAStep(iv, tol, burst), nil
}

// gcraStep is also the meter of LeakyBucket.
type gcraStep struct {
	noPenalty
	interval, tolerance, burst int64
	per                        divisor // divides by interval (spans up to tolerance ≤ maxSpan)
}

func newGCRAStep(interval, tolerance, burst int64) *gcraStep {
	return &gcraStep{interval: interval, tolerance: tolerance, burst: burst, per: newDivisor(interval)}
}

func (g *gcraStep) words() int { return 1 }

func (g *gcraStep) quota() (int64, time.Duration) { return g.burst, time.Duration(g.tolerance) }

func (g *gcraStep) take(st []int64, now, cost int64, commit bool) outcome {
	o, tat := g.next(st[0], now, cost)
	if commit && o.allowed {
		st[0] = tat
	}
	return o
}

// next decides taking cost at now from the state tat: the outcome, and the
// state the take leaves when it is allowed (tat otherwise).
func (g *gcraStep) next(tat, now, cost int64) (outcome, int64) {
	diff, ok := g.admit(tat, now, cost)
	if !ok {
		return g.refuse(tat, now, g.retry(diff, cost)), tat
	}
	return g.admitted(diff), now + diff
}

// admit is the verdict on taking cost at now from the state tat: TAT' −
// now, and whether that passes. (admit, admitted and refuse are next in
// pieces small enough for the memory store's lock-free take to inline.)
func (g *gcraStep) admit(tat, now, cost int64) (diff int64, ok bool) {
	diff = max(tat, now) + cost*g.interval - now // (meaningless if cost > burst)
	return diff, cost <= g.burst && diff <= g.tolerance
}

// admitted is the outcome of an admitted take that left TAT' − now = diff.
func (g *gcraStep) admitted(diff int64) outcome {
	return outcome{allowed: true, remaining: g.per.div(g.tolerance - diff), resetAfter: diff}
}

// retry is the wait of a denied take of cost that would have left TAT' −
// now = diff.
func (g *gcraStep) retry(diff, cost int64) int64 {
	if cost > g.burst {
		return int64(Never)
	}
	return diff - g.tolerance
}

// refuse is the denial at now, from the state tat, of a take that may pass
// after retry.
func (g *gcraStep) refuse(tat, now, retry int64) outcome {
	debt := nonNeg(tat - now)
	return outcome{remaining: g.per.div(nonNeg(g.tolerance - debt)), resetAfter: debt, retryAfter: retry}
}

// refund moves TAT back by what the take still holds: its cost·I, less
// what has drained since (the take's span ended at until), never below now.
func (g *gcraStep) refund(st []int64, now, _, until, cost int64) {
	if cost > g.burst {
		cost = g.burst
	}
	give := min(cost*g.interval, until-now)
	st[0] = max(st[0]-give, min(st[0], now))
}

func (g *gcraStep) idleAt(st []int64) int64 { return st[0] }
