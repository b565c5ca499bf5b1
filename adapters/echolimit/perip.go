package echolimit

import (
	"fmt"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/labstack/echo/v4"
)

// PerIP returns echo middleware that limits each client IP to rate, in
// the rate syntax of package core ("100/min", "10/s burst 20"), with the
// defaults of middleware.PerIP: the client IP from RemoteAddr (IPv6 by
// /64; never echo's RealIP), every rate-limit header, a problem+json 429,
// fail closed. opts configure the limiter (core.WithStore for a store
// shared by a fleet).
//
//	e.Use(echolimit.MustPerIP("100/min"))
//
// Mounted with e.Use it limits every request, unrouted ones included; one
// limit covers every method, so HEAD counts as GET. A CORS preflight that
// echo routes to a handler of an OPTIONS route (Any's included) is
// counted in the client's bucket too; one that echo answers itself (404,
// 405, its automatic OPTIONS answer) or gives a RouteNotFound handler is
// limited as strictly in a bucket of its own (see middleware.Preflight).
// Mounted with e.Pre, before echo routes, it finds the route echo will
// serve a preflight with, and decides the preflight so; a preflight the
// router routes to no route (nothing, or RouteNotFound) is counted in the
// client's bucket, since a Pre middleware after it (RemoveTrailingSlash)
// may yet route it to a handler: mount PerIP after Pre middleware that
// rewrite paths.
// Behind a proxy, give middleware.New a key from keyfunc.ClientIP (or
// [RealIP]) and mount it with [Limit].
//
// An invalid rate is an error wrapping core.ErrInvalidConfig.
func PerIP(rate string, opts ...core.Option) (echo.MiddlewareFunc, error) {
	m, err := middleware.PerIP(rate, opts...)
	if err != nil {
		return nil, fmt.Errorf("echolimit: %w", err)
	}
	return limit(m, false), nil
}

// MustPerIP is like [PerIP] but panics, with PerIP's error, if rate is
// invalid: for a rate written as a constant, like regexp.MustCompile. It
// never panics while serving.
func MustPerIP(rate string, opts ...core.Option) echo.MiddlewareFunc {
	h, err := PerIP(rate, opts...)
	if err != nil {
		panic(err)
	}
	return h
}
