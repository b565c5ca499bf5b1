package middleware

import "github.com/floodgate-go/floodgate/core"

// PerIP returns a Middleware that limits each client IP to rate, in the
// rate syntax of package core ("100/min", "10/s burst 20"; see [Rate]),
// with safe defaults: the client IP from RemoteAddr, IPv6 clients by /64,
// every rate-limit header, a problem+json 429, fail closed. opts configure
// the limiter: core.WithStore for a Redis store shared by a fleet,
// core.WithClock in tests. The policy is named "per-ip".
//
//	http.ListenAndServe(addr, middleware.MustPerIP("100/min").Handler(mux))
//
// Every request of a client counts in its one bucket, whatever its method.
// A CORS preflight does too when it reaches a handler serving OPTIONS, as
// r.Pattern tells (set by Handler wrapping the *http.ServeMux, or by the
// mux routing to the handler PerIP wraps): a pattern without a method or
// listing OPTIONS. A preflight the mux answers itself (404, 405), or that
// no pattern describes (Handler wrapping another handler), is limited as
// strictly in a bucket of its own (see [Preflight]).
//
// PerIP reads no forwarding header: behind a proxy or a load balancer every
// request would come from the proxy's address. There, give [New] a key
// from keyfunc.ClientIP with the proxies' networks or hop count.
//
// An invalid rate is an error wrapping core.ErrInvalidConfig (a
// *core.ParseError naming the offending token and its column).
func PerIP(rate string, opts ...core.Option) (*Middleware, error) {
	return New(Rate("per-ip", rate, opts...), Options{})
}

// MustPerIP is like [PerIP] but panics, with PerIP's error, if rate is
// invalid: for rates written as constants in the program, like
// regexp.MustCompile, so that the mistake stops it at start-up. It never
// panics while serving.
func MustPerIP(rate string, opts ...core.Option) *Middleware {
	m, err := PerIP(rate, opts...)
	if err != nil {
		panic(err)
	}
	return m
}
