package headers

import (
	"fmt"
	"math/bits"
)

// Field is a set of the header fields a [Writer] knows. Its constants name
// one field each, or a group of them; they combine with |.
type Field uint16

const (
	// RetryAfter is the Retry-After field, written on denials only.
	RetryAfter Field = 1 << iota
	// XRateLimitLimit is X-RateLimit-Limit: the binding limit's quota.
	XRateLimitLimit
	// XRateLimitRemaining is X-RateLimit-Remaining: the binding limit's
	// remaining quota, 0 on denials.
	XRateLimitRemaining
	// XRateLimitReset is X-RateLimit-Reset: the Unix time in seconds at
	// which the binding limit is whole again or, on a denial, at which the
	// request passes.
	XRateLimitReset
	// RateLimitPolicy is the IETF RateLimit-Policy field (every draft).
	RateLimitPolicy
	// RateLimit is the IETF RateLimit field (drafts 7 and 11).
	RateLimit
	// RateLimitLimit is the IETF RateLimit-Limit field (draft 6).
	RateLimitLimit
	// RateLimitRemaining is the IETF RateLimit-Remaining field (draft 6).
	RateLimitRemaining
	// RateLimitReset is the IETF RateLimit-Reset field (draft 6).
	RateLimitReset

	// XRateLimit is the X-RateLimit-Limit, -Remaining and -Reset fields.
	XRateLimit = XRateLimitLimit | XRateLimitRemaining | XRateLimitReset
	// IETF is every IETF field, of whichever draft.
	IETF = RateLimitPolicy | RateLimit | RateLimitLimit | RateLimitRemaining | RateLimitReset
	// AllFields is every field a Writer knows.
	AllFields = RetryAfter | XRateLimit | IETF
)

// numFields is how many single fields there are: the bits of AllFields.
const numFields = 9

// The positions of the single fields, in Writer.names.
const (
	iRetryAfter = iota
	iXLimit
	iXRemaining
	iXReset
	iPolicy
	iRateLimit
	iLimit
	iRemaining
	iReset
)

var defaultNames = [numFields]string{
	"Retry-After",
	"X-RateLimit-Limit",
	"X-RateLimit-Remaining",
	"X-RateLimit-Reset",
	"RateLimit-Policy",
	"RateLimit",
	"RateLimit-Limit",
	"RateLimit-Remaining",
	"RateLimit-Reset",
}

// index returns the position of the single field f, or -1.
func (f Field) index() int {
	if f == 0 || f&(f-1) != 0 || f&AllFields == 0 {
		return -1
	}
	return bits.TrailingZeros16(uint16(f))
}

// String returns the default name of a single field, e.g. "X-RateLimit-Limit",
// or the names of a set's fields joined by "|".
func (f Field) String() string {
	if i := f.index(); i >= 0 {
		return defaultNames[i]
	}
	if f == 0 {
		return "Field(0)"
	}
	s := ""
	for i := range numFields {
		if f&(1<<i) != 0 {
			if s != "" {
				s += "|"
			}
			s += defaultNames[i]
		}
	}
	if rest := f &^ AllFields; rest != 0 {
		if s != "" {
			s += "|"
		}
		s += fmt.Sprintf("Field(%#x)", uint16(rest))
	}
	return s
}
