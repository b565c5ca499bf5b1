// Package seconds turns durations into the whole seconds of HTTP fields
// (Retry-After, rate-limit windows and resets), rounding up without
// overflowing, so that every field of the module rounds the same way.
package seconds

import (
	"math"
	"time"
)

const second = int64(time.Second)

// Ceil returns d in whole seconds rounded up; 0 for d ≤ 0.
func Ceil(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	s := int64(d) / second
	if int64(d)%second != 0 {
		s++
	}
	return s
}

// Positive returns d in whole seconds rounded up and at least 1: a
// Retry-After of 0 would invite an immediate retry that has just been
// refused, and the rate-limit drafts want windows to be positive.
func Positive(d time.Duration) int64 { return max(Ceil(d), 1) }

// EpochCeil returns the Unix time in seconds, rounded up, of the instant at
// (Unix nanoseconds) plus d; a negative d counts as 0. It does not
// overflow, whatever at and d.
func EpochCeil(at int64, d time.Duration) int64 {
	dn := max(int64(d), 0)
	if at >= 0 && at <= math.MaxInt64-(second-1)-dn {
		// The usual instant and wait: their sum, rounded up, does not
		// overflow.
		return (at + dn + second - 1) / second
	}
	s, r := at/second, at%second
	if r < 0 {
		s, r = s-1, r+second
	}
	s += dn / second
	r += dn % second
	if r >= second {
		s, r = s+1, r-second
	}
	if r > 0 {
		s++
	}
	return s
}
