package core

import (
	"context"
	"time"
)

// maxDelayKey is the context key of [WithMaxDelay].
type maxDelayKey struct{}

// WithMaxDelay returns a copy of ctx under which a take ([Limiter.Take],
// [Limiter.AllowN], [Limiter.Allow], and those of an [Overrides]) admitted
// with a shaping Delay longer than d is decided as a denial, for a
// caller that will not wait that long (the middleware's
// Options.MaxDelay): the cost is given back ([Limiter.Refund]) and the
// Result turned into a denial ([Result.DenyDelay]) before the limiter's
// observer and heavy-hitter sketch see it, so that they count the denial
// the caller answers, not an admission. Should the refund fail (a full
// refund ledger, a store fault), the denial keeps its cost taken and
// [Result.Taken] reports it: give it back then. A store whose admissions
// cannot be given back takes nothing for such an admission (see
// [MaxDelayOf]). A negative d counts as 0.
func WithMaxDelay(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, maxDelayKey{}, max(d, 0))
}

// capDelay applies ctx's [WithMaxDelay] to res, a take of key: an
// admission delayed longer is given back and turned into a denial. It
// costs a comparison unless res is delayed.
func (l *Limiter) capDelay(ctx context.Context, key string, res *Result) {
	if !res.Allowed || res.Delay <= 0 {
		return
	}
	limit, ok := ctx.Value(maxDelayKey{}).(time.Duration)
	if !ok || res.Delay <= limit {
		return
	}
	if _, err := l.Refund(context.WithoutCancel(ctx), key, *res); err == nil {
		res.taken = false
	}
	res.DenyDelay(limit)
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
