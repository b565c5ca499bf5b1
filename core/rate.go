package core

import (
	"fmt"
	"math"
	"time"
)

// maxSpan is the longest duration any algorithm keeps in its state: about
// 36 years. With instants capped at maxInstant, now + span + span always
// fits in an int64 of Unix nanoseconds.
const maxSpan = int64(1) << 60

// maxInstant is the latest instant a decision may be made at:
// 2^63−1 − 2^61 ns, 2189-03-16T23:50:27.641081855Z.
const maxInstant = int64(1<<63-1) - 2*maxSpan

// Rate is Count events per Period. The zero Rate is invalid.
type Rate struct {
	Count  int64
	Period time.Duration
}

// Per returns the rate of n events per d.
func Per(n int64, d time.Duration) Rate { return Rate{Count: n, Period: d} }

// PerSecond returns the rate of n events per second.
func PerSecond(n int64) Rate { return Rate{Count: n, Period: time.Second} }

// PerMinute returns the rate of n events per minute.
func PerMinute(n int64) Rate { return Rate{Count: n, Period: time.Minute} }

// PerHour returns the rate of n events per hour.
func PerHour(n int64) Rate { return Rate{Count: n, Period: time.Hour} }

// PerDay returns the rate of n events per 24 hours.
func PerDay(n int64) Rate { return Rate{Count: n, Period: 24 * time.Hour} }

// RateOf returns the rate of perSecond events per second, for rates that are
// not a whole number of events per period. The emission interval is rounded
// up to a whole nanosecond, so the rate granted is never above the one asked
// for. It fails for NaN, infinities, values ≤ 0, rates above 1e9/s and rates
// so slow that one interval exceeds about 36 years.
func RateOf(perSecond float64) (Rate, error) {
	if math.IsNaN(perSecond) || math.IsInf(perSecond, 0) || perSecond <= 0 {
		return Rate{}, fmt.Errorf("core: rate %v per second: %w", perSecond, ErrInvalidConfig)
	}
	ns := math.Ceil(1e9 / perSecond)
	if perSecond > 1e9 || ns > float64(maxSpan) {
		return Rate{}, fmt.Errorf("core: rate %v per second is outside [1/36y, 1e9/s]: %w", perSecond, ErrInvalidConfig)
	}
	return Rate{Count: 1, Period: time.Duration(ns)}, nil
}

func (r Rate) validate(what string) error {
	if r.Count <= 0 {
		return fmt.Errorf("core: %s: rate count %d must be > 0: %w", what, r.Count, ErrInvalidConfig)
	}
	if r.Period <= 0 || int64(r.Period) > maxSpan {
		return fmt.Errorf("core: %s: rate period %v must be in (0, 36y]: %w", what, r.Period, ErrInvalidConfig)
	}
	return nil
}

// Interval returns the emission interval Period/Count, rounded up to a whole
// nanosecond so that the rate granted never exceeds r: the spacing the
// algorithms use. It is 0 for an invalid Rate.
func (r Rate) Interval() time.Duration {
	if r.Count <= 0 || r.Period <= 0 {
		return 0
	}
	p := int64(r.Period)
	return time.Duration(p/r.Count + btoi(p%r.Count != 0))
}

// PerSecond returns r as a float64 number of events per second, as
// x/time/rate's Limit.
func (r Rate) PerSecond() float64 { return float64(r.Count) / r.Period.Seconds() }

func btoi(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// mulSpan returns a*b and whether it stays within maxSpan (a, b ≥ 0).
func mulSpan(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	if a > maxSpan/b {
		return 0, false
	}
	p := a * b
	return p, p <= maxSpan
}

func validWindow(what string, w time.Duration) error {
	if w <= 0 || int64(w) > maxSpan {
		return fmt.Errorf("core: %s: window %v must be in (0, 36y]: %w", what, w, ErrInvalidConfig)
	}
	return nil
}
