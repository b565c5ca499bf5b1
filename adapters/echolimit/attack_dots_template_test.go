package echolimit_test

import (
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// echo routes a path as it comes: "/items/." reaches "/items/:id",
// "/admin/../healthz" the catch-all "/admin/*". A route written in
// ServeMux's syntax for such a template limits those requests in its
// bucket: the template is matched, not the request's path, which ServeMux
// would clean into another route's ("/healthz") or none (the default).
// Before, each was counted on the route or default of the client's choosing.
func TestAttackDotSegmentsKeepTheTemplatesRoute(t *testing.T) {
	for _, c := range []struct{ route, method, template, path string }{
		{"DELETE /items/{id}", "DELETE", "/items/:id", "/items/."},
		{"GET /users/{id}/keys", "GET", "/users/:id/keys", "/users/../keys"},
		{"/admin/", "GET", "/admin/*", "/admin/../healthz"},
		{"GET /files/{p...}", "GET", "/files/*", "/files/../healthz"},
	} {
		rt := middleware.NewRoutes(limiter(t, core.FixedWindow{Quota: 1000, Window: time.Hour}))
		require.NoError(t, rt.Add(c.route, limiter(t, core.FixedWindow{Quota: 1, Window: time.Hour})))
		require.NoError(t, rt.Add("/healthz", limiter(t, core.FixedWindow{Quota: 1000, Window: time.Hour})))
		m, err := middleware.NewSelect(rt, middleware.Options{})
		require.NoError(t, err)
		hits := 0
		e := echo.New()
		e.Use(echolimit.Limit(m))
		e.Add(c.method, c.template, func(echo.Context) error { hits++; return nil })
		e.GET("/healthz", ok)
		var codes []int
		for range 3 {
			codes = append(codes, do(e, c.method, c.path).Code)
		}
		assert.Equal(t, []int{200, 429, 429}, codes, "%s %s to %s", c.method, c.path, c.template)
		assert.Equal(t, 1, hits, "%s %s to %s", c.method, c.path, c.template)
	}
}
