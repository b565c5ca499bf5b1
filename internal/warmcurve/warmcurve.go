// Package warmcurve computes the curve of a warm-up limiter (Guava's
// SmoothWarmingUp): the one copy of that arithmetic, which core.WarmUp
// decides with in Go and the Redis store hands to its script.
package warmcurve

import "time"

// DefaultColdFactor is the cold factor a zero one means, as in Guava.
const DefaultColdFactor = 3

// Curve is a warm-up limiter's parameters, in float64 nanoseconds and
// permits. A key stores up to MaxPermits permits while idle (gaining one
// every CoolDown ns); spending a permit above Threshold costs Stable +
// (stored − Threshold)·Slope ns, below it Stable ns.
type Curve struct {
	Stable     float64 // ns per permit at the stable rate
	Threshold  float64 // permits
	MaxPermits float64 // permits
	Slope      float64 // ns per permit, per permit above Threshold
	CoolDown   float64 // ns per permit regained while idle
}

// Of returns the curve of count units per period, reached after warmUp
// from a cold interval coldFactor times the stable one (0 means
// DefaultColdFactor). The arguments must be valid: count ≥ 1, period and
// warmUp > 0, coldFactor 0 or ≥ 1.
func Of(count int64, period, warmUp time.Duration, coldFactor float64) Curve {
	if coldFactor == 0 {
		coldFactor = DefaultColdFactor
	}
	stable := float64(period) / float64(count)
	cold := stable * coldFactor
	warm := float64(warmUp)
	threshold := 0.5 * warm / stable
	maxP := threshold + 2*warm/(stable+cold)
	return Curve{
		Stable:     stable,
		Threshold:  threshold,
		MaxPermits: maxP,
		Slope:      (cold - stable) / (maxP - threshold),
		CoolDown:   warm / maxP,
	}
}
