package echolimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
)

// It guards against a narrowing of the methods that was withdrawn: the
// adapters marked "-" the methods a router routes the path by to another
// route, and each review of the marks found a handler they let through
// uncharged; the marks are gone, and this request is charged again.
//
// TestAttackSameHandlerRouteAddedLate: e.POST("/api/login", h), added
// after the first request had read the routes, gives h, which
// e.Any("/api/*", h) serves for every method, the guard "POST
// /api/login" (1). A GET of "/api/login" reaching h was narrowed by the
// old reading, which does not list that route: POST was marked "-", as
// routed to another handler, and the GETs went uncharged (3 of 3) until a
// POST had the routes read again. Now 1 of 3, with Use and Pre.
func TestAttackSameHandlerRouteAddedLate(t *testing.T) {
	t.Parallel()
	for _, pre := range []bool{false, true} {
		m := selectOn(t, quota{"POST /api/login", 1})
		e := echo.New()
		if pre {
			e.Pre(echolimit.Limit(m))
		} else {
			e.Use(echolimit.Limit(m))
		}
		h := func(echo.Context) error { return nil }
		e.Any("/api/*", h)
		assert.Equal(t, http.StatusOK, from(e, http.MethodGet, "/api/page", "192.0.2.9:1"), "pre %v", pre)
		e.POST("/api/login", h)
		assert.Equal(t, []int{200, 429, 429}, thrice(e, http.MethodGet, "/api/login"), "pre %v", pre)
	}
}
