package ginlimit

import (
	"fmt"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/gin-gonic/gin"
)

// PerIP returns a gin handler that limits each client IP to rate, in the
// rate syntax of package core ("100/min", "10/s burst 20"), with the
// defaults of middleware.PerIP: the client IP from RemoteAddr (IPv6 by
// /64; never gin's ClientIP), every rate-limit header, a problem+json 429,
// fail closed. opts configure the limiter (core.WithStore for a store
// shared by a fleet).
//
//	engine.Use(ginlimit.MustPerIP("100/min"))
//
// Mounted with engine.Use it limits every request, unrouted ones included;
// one limit covers every method, so HEAD counts as GET. A CORS preflight
// that gin routes to a handler (an OPTIONS route, Any's) is counted in the
// client's bucket too; one that matches no route (c.FullPath() is "") is
// limited as strictly in a bucket of its own (see middleware.Preflight).
// Behind a proxy, give middleware.New a key from keyfunc.ClientIP (or
// [ClientIP]) and mount it with [Limit].
//
// An invalid rate is an error wrapping core.ErrInvalidConfig.
func PerIP(rate string, opts ...core.Option) (gin.HandlerFunc, error) {
	m, err := middleware.PerIP(rate, opts...)
	if err != nil {
		return nil, fmt.Errorf("ginlimit: %w", err)
	}
	return limit(m, false, nil), nil
}

// MustPerIP is like [PerIP] but panics, with PerIP's error, if rate is
// invalid: for a rate written as a constant, like regexp.MustCompile. It
// never panics while serving.
func MustPerIP(rate string, opts ...core.Option) gin.HandlerFunc {
	h, err := PerIP(rate, opts...)
	if err != nil {
		panic(err)
	}
	return h
}
