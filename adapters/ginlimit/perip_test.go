package ginlimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/ginlimit"
	"github.com/floodgate-go/floodgate/internal/stacktest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/gin-gonic/gin"
)

// The one-liner on the engine counts every request of a client IP: HEAD of
// a GET route and requests gin answers 404 included.
// (The behaviour table in adapters/stacks checks its answers against
// net/http's, preflights and IPv6 included.)
func TestPerIPCountsEveryRequest(t *testing.T) {
	e := gin.New()
	e.Use(ginlimit.MustPerIP("3/hour"))
	e.GET("/hello", ok)
	stacktest.CheckPerIPCountsEveryRequest(t, e, http.StatusNotFound)
}

// A preflight gin routes to a handler (Any's, OPTIONS') is counted in the
// client's bucket: before, it got a bucket of its own, a second budget.
func TestPerIPPreflightReachingHandler(t *testing.T) {
	stacktest.CheckPerIPPreflights(t, func(h http.Handler) http.Handler {
		e := gin.New()
		e.Use(ginlimit.MustPerIP("1/hour"))
		e.Any("/any", gin.WrapH(h))
		e.OPTIONS("/opt", gin.WrapH(h))
		e.GET("/get", gin.WrapH(h))
		return e
	})
}

// Limit counts a preflight reaching a handler of an OPTIONS route alone
// (engine.OPTIONS) in the client's bucket, with a single limiter, a keyed
// one or Routes' default: before, the route table gave no pattern for a
// handler of one method, so the preflight got a bucket of its own, a
// second budget.
func TestLimitPreflightReachingHandler(t *testing.T) {
	stacktest.CheckLimitPreflights(t, func(m *middleware.Middleware, h http.Handler) http.Handler {
		e := gin.New()
		e.Use(ginlimit.Limit(m, e))
		e.Any("/any", gin.WrapH(h))
		e.OPTIONS("/opt", gin.WrapH(h))
		e.GET("/get", gin.WrapH(h))
		return e
	})
}

// An invalid rate is PerIP's error, naming the column; MustPerIP panics
// with it when the engine is built.
func TestPerIPInvalidRate(t *testing.T) {
	stacktest.CheckPerIPInvalidRate(t, ginlimit.PerIP, ginlimit.MustPerIP)
}
