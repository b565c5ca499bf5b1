package core

import (
	"math"
	"time"
)

// Never is the RetryAfter of a request that can never pass: its cost exceeds
// what the limit can ever grant at once.
const Never = time.Duration(math.MaxInt64)

// MaxLimits is the most limits one [Policy] may hold.
const MaxLimits = 4

// LimitResult is one limit's part of a decision.
type LimitResult struct {
	// Name is the limit's name within its policy.
	Name string
	// Quota is the most the limit grants at once (its burst or per-window
	// limit), and Window the time in which that quota is replenished: the
	// q and w of the IETF RateLimit-Policy field.
	Quota  int64
	Window time.Duration
	// Allowed reports whether this limit admits the request.
	Allowed bool
	// Remaining is what the limit still grants now: after this request's
	// cost when it was taken, without it otherwise.
	Remaining int64
	// ResetAfter is the time until the limit is fully replenished (or its
	// window ends) if nothing more is taken.
	ResetAfter time.Duration
	// RetryAfter is, for a denial, the exact wait until the same request
	// would pass this limit, or [Never]. Zero when allowed.
	RetryAfter time.Duration
	// Delay is how long an admitted request must wait before it proceeds
	// (shaping by [LeakyBucket]); zero for the other algorithms.
	Delay time.Duration
}

// Result is the outcome of one decision on a policy. Its top-level fields
// describe the binding limit: for a denial the denying limit with the longest
// RetryAfter, otherwise the limit with the least Remaining.
//
// The zero Result is a denial of nothing.
type Result struct {
	// Allowed reports whether every limit of the policy admitted the request.
	Allowed bool
	// Name, Limit, Remaining and ResetAfter are the binding limit's Name,
	// Quota, Remaining and ResetAfter.
	Name       string
	Limit      int64
	Remaining  int64
	ResetAfter time.Duration
	// RetryAfter is, for a denial, the exact wait until the same request
	// would pass every limit, or [Never]. Zero when allowed.
	RetryAfter time.Duration
	// Delay is the longest Delay among the limits.
	Delay time.Duration
	// Cost is the cost the decision was asked for.
	Cost int64

	at     int64 // Unix nanoseconds the decision was made at
	taken  bool  // the cost was consumed (a Refund may give it back)
	n      uint8
	limits [MaxLimits]LimitResult
}

// Limits returns the result of each limit of the policy, in policy order.
// The slice aliases r.
func (r *Result) Limits() []LimitResult { return r.limits[:r.n] }

// At returns the instant the decision was made at.
func (r *Result) At() time.Time { return time.Unix(0, r.at) }

// Taken reports whether the decision consumed its cost, so that
// [Limiter.Refund] may give it back.
func (r *Result) Taken() bool { return r.taken }

// summarize sets the top-level fields from the per-limit results.
func (r *Result) summarize() {
	ls := r.limits[:r.n]
	b := 0
	r.Allowed = true
	r.Delay = 0
	for i := range ls {
		if ls[i].Delay > r.Delay {
			r.Delay = ls[i].Delay
		}
		if !ls[i].Allowed {
			if r.Allowed || ls[i].RetryAfter > ls[b].RetryAfter {
				b = i
			}
			r.Allowed = false
		} else if r.Allowed && ls[i].Remaining < ls[b].Remaining {
			b = i
		}
	}
	l := &ls[b]
	r.Name, r.Limit, r.Remaining, r.ResetAfter = l.Name, l.Quota, l.Remaining, l.ResetAfter
	r.RetryAfter = 0
	if !r.Allowed {
		r.RetryAfter = l.RetryAfter
	}
}
