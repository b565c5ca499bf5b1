package middleware

import (
	"context"
	"fmt"

	"github.com/floodgate-go/floodgate/core"
)

// Rate returns a Limiter deciding the policy rate describes in the rate
// syntax of package core ("100/min", "10/s burst 20", "5/15m backoff",
// "burst: 10/s; daily: 10000/day fixed-window"; see core.ParsePolicy),
// named name, with opts (core.WithStore for Redis, core.WithClock for
// tests). When rate is valid the Limiter is a *core.Limiter.
//
// Rate returns no error so that it can be written wherever a Limiter is
// given: New(Rate("api", "100/min"), opts), routes.Add("POST /login",
// Rate("login", "5/min")), the map of [Tiers]. A rate that does not parse,
// or a limiter that cannot be built, gives a Limiter that every constructor
// of this package refuses with its error (for a rate, a *core.ParseError
// naming the column, wrapping core.ErrInvalidConfig): the mistake stops the
// program at start-up. Used anyway, that Limiter fails every decision with
// the same error, which the middleware answers fail-closed.
//
// name appears in the rate-limit headers (as the limit's name when rate
// names none) and keeps apart the state of limiters that share a store:
// two limiters of the same name and rate in one Redis store count
// together, as every process of a fleet should, and so do two whose rates
// differ only in what core.Limiter.SetPolicy may change (a quota, a rate,
// a burst: a fleet part way through a reload): give limits meant to count
// apart names of their own.
func Rate(name, rate string, opts ...core.Option) Limiter {
	p, err := core.ParsePolicy(name, rate)
	if err != nil {
		return &badRate{fmt.Errorf("rate %q of %q: %w", rate, name, err)}
	}
	l, err := core.NewLimiter(p, opts...)
	if err != nil {
		return &badRate{fmt.Errorf("rate %q of %q: %w", rate, name, err)}
	}
	return l
}

// badRate is the Limiter of a Rate that could not be built: refused by
// checkLimiter, failing every decision.
type badRate struct{ err error }

func (b *badRate) AllowN(context.Context, string, int64) (core.Result, error) {
	return core.Result{}, fmt.Errorf("middleware: %w", b.err)
}

func (b *badRate) Refund(context.Context, string, core.Result) (core.Result, error) {
	return core.Result{}, fmt.Errorf("middleware: %w", b.err)
}
