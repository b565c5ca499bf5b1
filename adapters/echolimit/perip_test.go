package echolimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/floodgate-go/floodgate/internal/stacktest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/labstack/echo/v4"
)

// The one-liner on the server counts every request of a client IP: HEAD of
// a GET route and requests echo answers 404 or 405 included.
// (The behaviour table in adapters/stacks checks its answers against
// net/http's, preflights and IPv6 included.)
func TestPerIPCountsEveryRequest(t *testing.T) {
	e := echo.New()
	e.Use(echolimit.MustPerIP("3/hour"))
	e.GET("/hello", ok)
	stacktest.CheckPerIPCountsEveryRequest(t, e, http.StatusMethodNotAllowed)
}

// A preflight echo routes to a handler (Any's, OPTIONS') is counted in the
// client's bucket, and one echo answers itself (its automatic OPTIONS
// answer for /get) is not: before, every preflight got a bucket of its
// own, a second budget.
func TestPerIPPreflightReachingHandler(t *testing.T) {
	stacktest.CheckPerIPPreflights(t, func(h http.Handler) http.Handler {
		e := echo.New()
		e.Use(echolimit.MustPerIP("1/hour"))
		e.Any("/any", echo.WrapHandler(h))
		e.OPTIONS("/opt", echo.WrapHandler(h))
		e.GET("/get", echo.WrapHandler(h))
		return e
	})
}

// Limit counts a preflight reaching a handler of an OPTIONS route alone
// (e.OPTIONS) in the client's bucket, with a single limiter, a keyed one or
// Routes' default: before, the route table gave no pattern for a handler
// of one method, so the preflight got a bucket of its own, a second
// budget.
func TestLimitPreflightReachingHandler(t *testing.T) {
	stacktest.CheckLimitPreflights(t, func(m *middleware.Middleware, h http.Handler) http.Handler {
		e := echo.New()
		e.Use(echolimit.Limit(m))
		e.Any("/any", echo.WrapHandler(h))
		e.OPTIONS("/opt", echo.WrapHandler(h))
		e.GET("/get", echo.WrapHandler(h))
		return e
	})
}

// An invalid rate is PerIP's error, naming the column; MustPerIP panics
// with it when the server is built.
func TestPerIPInvalidRate(t *testing.T) {
	stacktest.CheckPerIPInvalidRate(t, echolimit.PerIP, echolimit.MustPerIP)
}
