package core

import (
	"math"
	"time"

	"github.com/floodgate-go/floodgate/core/store"
)

// Never is the RetryAfter of a request that can never pass: its cost exceeds
// what the limit can ever grant at once.
const Never = time.Duration(math.MaxInt64)

// MaxLimits is the most limits one [Policy] may hold.
const MaxLimits = store.MaxLimits

// LimitResult is one limit's part of a decision.
type LimitResult struct {
	// Name is the limit's name within its policy.
	Name string
	// Quota is the most the limit grants at once (its burst or per-window
	// limit), and Window the time in which that quota is replenished: the
	// q and w of the IETF RateLimit-Policy field.
	Quota  int64
	Window time.Duration
	// Allowed reports whether this limit admits the request. (In a denied
	// decision, a SlidingLog with CountRejected reports, here and below,
	// what it decides once the denied attempt is logged.)
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
// The zero Result is a denial of nothing. A Result is a plain value: copy it
// freely; [Limiter.Take] fills one in place for callers that reuse it. A
// consuming decision carries a private id, so that [Limiter.Refund] gives
// it back at most once however many copies are refunded.
type Result struct {
	// Allowed reports whether every limit of the policy admitted the request.
	Allowed bool
	// Name, Quota, Window, Remaining and ResetAfter are the binding limit's
	// Name, Quota, Window, Remaining and ResetAfter.
	Name       string
	Quota      int64
	Window     time.Duration
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
	policy *Policy
	taken  bool  // the cost was consumed (a Refund may give it back)
	bind   uint8 // index of the binding limit
	source Source
	// id names a consuming decision (0 for anything else); kh is the key's
	// hash and owner the limiter that decided. Refund gives back a
	// decision at most once, to the key and limiter that took it. With
	// epoch (for the in-memory store, the epoch of the key's shard the
	// take read: see memword.go; on other stores, its position in the
	// limiter's refund log, see lowerlog.go), kh and id tell the decision
	// from every other of its limiter.
	id    uint64
	kh    uint64
	epoch uint64
	owner *Limiter
	// per holds each limit's outcome (a single limit's is also the top
	// level), then, from index NumLimits on, each shadow limit's (see
	// shadow.go).
	per [MaxLimits]outcome
	// shadowSet and shadowDenied are bit sets over the policy's shadow
	// limits: those decided, and those that would have denied.
	shadowSet, shadowDenied uint8
}

// At returns the instant the decision was made at.
func (r *Result) At() time.Time { return time.Unix(0, r.at) }

// Taken reports whether the decision consumed its cost, so that
// [Limiter.Refund] may give it back.
func (r *Result) Taken() bool { return r.taken }

// Policy returns the policy decided, or nil for the zero Result.
func (r *Result) Policy() *Policy { return r.policy }

// NumLimits returns the number of limits of the policy decided.
func (r *Result) NumLimits() int {
	if r.policy == nil {
		return 0
	}
	return len(r.policy.limits)
}

// Limits returns the result of each limit of the policy, in policy order.
func (r *Result) Limits() []LimitResult { return r.AppendLimits(nil) }

// AppendLimits appends the result of each limit of the policy to dst, in
// policy order, and returns the extended slice: with a dst of capacity
// [MaxLimits] it allocates nothing.
func (r *Result) AppendLimits(dst []LimitResult) []LimitResult {
	n := r.NumLimits()
	if n == 1 {
		l := &r.policy.limits[0]
		return append(dst, LimitResult{
			Name: l.Name, Quota: l.quota, Window: l.window, Allowed: r.Allowed,
			Remaining: r.Remaining, ResetAfter: r.ResetAfter, RetryAfter: r.RetryAfter, Delay: r.Delay,
		})
	}
	for i := 0; i < n; i++ {
		l, o := &r.policy.limits[i], &r.per[i]
		dst = append(dst, LimitResult{
			Name: l.Name, Quota: l.quota, Window: l.window, Allowed: o.allowed,
			Remaining: o.remaining, ResetAfter: time.Duration(o.resetAfter),
			RetryAfter: time.Duration(o.retryAfter), Delay: time.Duration(o.delay),
		})
	}
	return dst
}

// DenyDelay turns r, an admission whose shaping Delay is longer than max,
// into the denial of a caller that will not wait that long (the
// middleware's Options.MaxDelay): each limit whose Delay exceeds max
// denies, with a RetryAfter of its Delay less max (the wait after which
// the same request would be delayed max), no Delay and nothing Remaining
// (any request would wait as long); the other limits keep their figures. The top level then describes the binding limit as in
// any denial, the denying limit with the longest RetryAfter, so that
// [Result.Limits], the rate-limit headers and a problem body all name the
// limits that refused. It reports whether r changed: a denial, or an
// admission whose Delay is at most max, is left as it is. The cost r took
// stays taken: give it back with [Limiter.Refund] first.
func (r *Result) DenyDelay(max time.Duration) bool {
	if !r.Allowed || r.Delay <= max {
		return false
	}
	if r.NumLimits() <= 1 {
		r.Allowed, r.RetryAfter, r.Delay, r.Remaining = false, r.Delay-max, 0, 0
		if r.policy != nil {
			o := &r.per[0]
			o.allowed, o.retryAfter, o.delay, o.remaining = false, int64(r.RetryAfter), 0, 0
		}
		return true
	}
	for i := range r.NumLimits() {
		// A denial delays nothing: the limits that would have delayed
		// less report no delay either, as in a store's denial.
		o := &r.per[i]
		if d := time.Duration(o.delay); d > max {
			o.allowed, o.retryAfter, o.remaining = false, int64(d-max), 0
		}
		o.delay = 0
	}
	r.summarize()
	return true
}

// set fills the top-level fields from the outcome of limit i.
func (r *Result) set(i int, o *outcome) {
	l := &r.policy.limits[i]
	r.Allowed, r.Name, r.Quota, r.Window = o.allowed, l.Name, l.quota, l.window
	r.bind = uint8(i)
	r.Remaining, r.ResetAfter = o.remaining, time.Duration(o.resetAfter)
	r.RetryAfter, r.Delay = time.Duration(o.retryAfter), time.Duration(o.delay)
}

// summarize sets the top-level fields from the per-limit outcomes of a
// policy of several limits.
func (r *Result) summarize() {
	n := len(r.policy.limits)
	b, allowed, delay := 0, true, int64(0)
	for i := 0; i < n; i++ {
		o := &r.per[i]
		delay = max(delay, o.delay)
		if !o.allowed {
			if allowed || o.retryAfter > r.per[b].retryAfter {
				b = i
			}
			allowed = false
		} else if allowed && o.remaining < r.per[b].remaining {
			b = i
		}
	}
	r.set(b, &r.per[b])
	r.Delay = time.Duration(delay)
}

// holds returns each limit's hold of a taken result: how long after its
// instant the take still held part of that limit's state.
func (r *Result) holds() (h [MaxLimits]int64) {
	for i := range r.NumLimits() {
		o := &r.per[i]
		h[i] = o.hold
		if h[i] == 0 {
			h[i] = o.resetAfter
		}
	}
	return h
}
