package echolimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
)

// Limit mounted with e.Pre finds the route echo will serve a request by,
// as c.Path() names it once echo routes: echo serves paths that ServeMux's
// rules route elsewhere or nowhere. "/users/5/x" reaches "/users/:id" (a
// last parameter takes the rest of the path) and "/admin/./public" the
// catch-all "/admin/*" as it comes. Matched by their path alone, they
// reached those handlers on the default (here none) or on
// "/admin/public"'s limit: 3 of 3 each ran, before; now 1.
func TestAttackPreMountLimitsTheRouteEchoServes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ route, path string }{
		{"/users/:id", "/users/5/x"},
		{"/admin/*", "/admin/./public"},
	} {
		m := selectOn(t, quota{"GET " + c.route, 1}, quota{"GET /admin/public", 1000})
		hits := 0
		e := echo.New()
		e.Pre(echolimit.Limit(m))
		e.GET(c.route, func(echo.Context) error { hits++; return nil })
		e.GET("/admin/public", ok)
		codes := thrice(e, http.MethodGet, c.path)
		assert.Equal(t, []int{200, 429, 429}, codes, c.path)
		assert.Equal(t, 1, hits, c.path)
	}
}
