package echolimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/floodgate-go/floodgate/internal/stacktest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/labstack/echo/v4"
)

// A global limit (e.Use) around a route's: the route's refusal of a
// request the global limit gave its last unit waits for the global
// limit's next admission (87 s), not its reset (864 s), as the adapter
// passes the admission on (c.SetRequest).
func TestAttackStackedDenialWaitsForTheOuterNextAdmission(t *testing.T) {
	t.Parallel()
	stacktest.CheckStackedWaitsForNextAdmission(t, func(outer, inner *middleware.Middleware, h http.HandlerFunc) http.Handler {
		e := echo.New()
		e.Use(echolimit.Limit(outer))
		e.GET("/items", echo.WrapHandler(h), echolimit.Limit(inner))
		return e
	})
}
