package chilimit

import (
	"fmt"
	"net/http"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
)

// PerIP returns chi middleware that limits each client IP to rate, in the
// rate syntax of package core ("100/min", "10/s burst 20"), with the
// defaults of middleware.PerIP: the client IP from RemoteAddr (IPv6 by
// /64), every rate-limit header, a problem+json 429, fail closed. opts
// configure the limiter (core.WithStore for a store shared by a fleet).
//
//	r.Use(chilimit.MustPerIP("100/min"))
//
// Mounted with the root router's Use it limits every request, 404s and
// 405s included; one limit covers every method, so HEAD counts as GET, and
// CORS preflights are limited in a bucket of their own (see
// middleware.Preflight). It reads no forwarding header: behind a proxy,
// give middleware.New a key from keyfunc.ClientIP and mount it with
// [LimitMux].
//
// An invalid rate is an error wrapping core.ErrInvalidConfig.
func PerIP(rate string, opts ...core.Option) (func(http.Handler) http.Handler, error) {
	m, err := middleware.PerIP(rate, opts...)
	if err != nil {
		return nil, fmt.Errorf("chilimit: %w", err)
	}
	return m.Handler, nil
}

// MustPerIP is like [PerIP] but panics, with PerIP's error, if rate is
// invalid: for a rate written as a constant, like regexp.MustCompile. It
// never panics while serving.
func MustPerIP(rate string, opts ...core.Option) func(http.Handler) http.Handler {
	h, err := PerIP(rate, opts...)
	if err != nil {
		panic(err)
	}
	return h
}
