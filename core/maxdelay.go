package core

import (
	"context"
	"time"
)

// maxDelayKey is the context key of [WithMaxDelay].
type maxDelayKey struct{}

// WithMaxDelay returns a copy of ctx under which a take ([Limiter.Take],
// [Limiter.AllowN], [Limiter.Allow], and those of an [Overrides]) is
// decided for a caller that will not wait longer than d for a shaping
// Delay (the middleware's Options.MaxDelay): a request is admitted only
// if every limit admits it with a Delay of at most d, and its Result
// says so honestly.
//
//   - An admission delayed longer than d is decided as a denial: the cost
//     is given back ([Limiter.Refund]) and the Result turned into a denial
//     ([Result.DenyDelay]) before the limiter's observer and heavy-hitter
//     sketch see it, so that they count the denial the caller answers, not
//     an admission.
//   - A denial's RetryAfter is the wait after which the same request (the
//     same cost) is admitted with a Delay of at most d, if nothing else is
//     taken meanwhile: not before, whichever limit refused it. A limit
//     that would delay the request longer than d denies it too.
//   - Remaining (top level and each limit's) counts only what can be
//     admitted at once within d: a request of that cost at the same
//     instant is admitted (0 when a shaping limit would delay any request
//     longer than d).
//
// Should the refund fail (a full refund ledger, a store fault), the denial
// keeps its cost taken and [Result.Taken] reports it: give it back then
// (until then a retry waits longer than RetryAfter). A store whose
// admissions cannot be given back takes nothing for such an admission
// (see [MaxDelayOf]). The bound is applied by the policy's own
// LeakyBucket figures; a store deciding on others errs towards waiting
// longer, never shorter: the Redis store, deciding at whole microseconds,
// may give a RetryAfter up to NoDelay µs longer for a rate whose interval
// is not a whole µs (and a retry up to 1 µs before it is admitted as
// well); its FailLocal limiter, on a policy scaled to a share below 1, up
// to (NoDelay−1) times the stretch of the interval longer, and a
// Remaining of 0 where some would pass. A negative d counts as 0.
func WithMaxDelay(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, maxDelayKey{}, max(d, 0))
}

// shaper is a stepper that delays admissions ([LeakyBucket]): a take at a
// debt (the time its queue needs to drain before it) larger than
// undelayed waits the excess, whatever its cost. Every outcome of such a
// step reports in resetAfter the debt after the take when it admits, the
// debt it found otherwise (a denial, a report of cost 0).
type shaper interface {
	undelayed() int64
}

// capDelay applies ctx's [WithMaxDelay] to res, a take of key: an
// admission delayed longer is given back and turned into a denial; any
// other decision has its RetryAfter and Remaining bounded by the delay
// (see Result.capWait). It costs a comparison unless res's policy shapes.
func (l *Limiter) capDelay(ctx context.Context, key string, res *Result) {
	if res.policy == nil || !res.policy.shapes {
		return
	}
	limit, ok := ctx.Value(maxDelayKey{}).(time.Duration)
	if !ok {
		return
	}
	if res.Allowed && res.Delay > limit {
		if _, err := l.Refund(context.WithoutCancel(ctx), key, *res); err == nil {
			res.taken = false
		}
		res.DenyDelay(limit)
		return
	}
	res.capWait(int64(limit))
}

// capPeek applies ctx's [WithMaxDelay] to res, a peek: as capDelay, with
// nothing to give back.
func capPeek(ctx context.Context, res *Result) {
	if res.policy == nil || !res.policy.shapes {
		return
	}
	limit, ok := ctx.Value(maxDelayKey{}).(time.Duration)
	if !ok {
		return
	}
	if res.Allowed && res.Delay > limit {
		res.DenyDelay(limit)
		return
	}
	res.capWait(int64(limit))
}

// capWait bounds r, a decision (of a store, not yet turned by DenyDelay)
// that delays nothing longer than limit, by that delay: each shaping
// limit at whose debt the next take would wait longer reports nothing
// Remaining and, in a denial, denies until the wait is down to limit.
// A limit admitting in a denial reports its state as it stands (its
// debt): a request waiting past limit is refused by it too. The top
// level is then summarized again.
func (r *Result) capWait(limit int64) {
	n, changed := r.NumLimits(), false
	for i := range n {
		sh, ok := r.policy.limits[i].step.(shaper)
		if !ok {
			continue
		}
		o := &r.per[i]
		// The next take's wait, then its excess over limit: limit may be
		// as large as math.MaxInt64 (a caller that waits forever), the
		// wait is within ±36 years (no overflow), their difference not.
		wait := o.resetAfter - sh.undelayed()
		if wait <= limit {
			continue
		}
		over := wait - limit
		o.remaining, changed = 0, true
		switch {
		case r.Allowed:
		case o.allowed:
			o.allowed, o.retryAfter = false, over
		case o.retryAfter != int64(Never):
			o.retryAfter = max(o.retryAfter, over)
		}
	}
	switch {
	case !changed:
	case n == 1:
		r.set(0, &r.per[0])
	default:
		r.summarize()
	}
}

// MaxDelayOf returns the d of ctx's [WithMaxDelay], and whether ctx has
// one. It is for a store whose admissions cannot be given back (the Redis
// store's FailLocal limiter): such a store takes nothing for an admission
// delayed longer than d, which the limiter then decides as a denial, as it
// gives back and denies a refundable one.
func MaxDelayOf(ctx context.Context) (d time.Duration, ok bool) {
	d, ok = ctx.Value(maxDelayKey{}).(time.Duration)
	return d, ok
}
