package ginlimit_test

import (
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/adapters/ginlimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gin routes a path as it comes, dot segments and all: "/items/." reaches
// "/items/:id" (id "."), "/admin/../healthz" the catch-all "/admin/*p". A
// route written in ServeMux's syntax for such a template ("DELETE
// /items/{id}", "/admin/") limits those requests in its bucket: the
// template is matched, not the request's path, which ServeMux would clean
// into another route's ("/healthz") or none (the default). Before, each
// such request was counted on the route or default of the client's
// choosing.
func TestAttackDotSegmentsKeepTheTemplatesRoute(t *testing.T) {
	for _, c := range []struct {
		route, method, template, path string
		any                           bool // registered with Any
	}{
		{"DELETE /items/{id}", "DELETE", "/items/:id", "/items/.", false},
		{"DELETE /items/{id}", "DELETE", "/items/:id", "/items/..", false},
		{"GET /users/{id}/keys", "GET", "/users/:id/keys", "/users/../keys", false},
		{"/admin/", "GET", "/admin/*p", "/admin/../healthz", false},
		{"/admin/", "PUT", "/admin/*p", "/admin/../../healthz/", false},
		{"GET /files/{p...}", "GET", "/files/*p", "/files/../healthz", false},
		// Every method reaches the handler, CONNECT too, whose path
		// ServeMux would not clean, unlike the others'.
		{"/admin/", "CONNECT", "/admin/*p", "/admin/../healthz", true},
		{"/admin/", "PUT", "/admin/*p", "/admin/../healthz", true},
	} {
		rt := middleware.NewRoutes(limiter(t, core.FixedWindow{Quota: 1000, Window: time.Hour}))
		require.NoError(t, rt.Add(c.route, limiter(t, core.FixedWindow{Quota: 1, Window: time.Hour})))
		require.NoError(t, rt.Add("GET /healthz", limiter(t, core.FixedWindow{Quota: 1000, Window: time.Hour})))
		m, err := middleware.NewSelect(rt, middleware.Options{})
		require.NoError(t, err)
		hits := 0
		engine := gin.New()
		engine.Use(ginlimit.Limit(m, engine))
		if c.any {
			engine.Any(c.template, func(*gin.Context) { hits++ })
		} else {
			engine.Handle(c.method, c.template, func(*gin.Context) { hits++ })
		}
		engine.GET("/healthz", ok)
		var codes []int
		for range 3 {
			codes = append(codes, do(engine, c.method, c.path, "192.0.2.1:1").Code)
		}
		assert.Equal(t, []int{200, 429, 429}, codes, "%s %s to %s", c.method, c.path, c.template)
		assert.Equal(t, 1, hits, "%s %s to %s", c.method, c.path, c.template)
	}
}

// A route more specific than the template, at a path the template serves
// ("GET /users/admin" under gin's "/users/:id"), still limits that path:
// the request's path is matched first while it stays under the template.
func TestRouteMoreSpecificThanTheTemplateKept(t *testing.T) {
	rt := middleware.NewRoutes(nil)
	require.NoError(t, rt.Add("GET /users/{id}", limiter(t, core.FixedWindow{Quota: 1000, Window: time.Hour})))
	require.NoError(t, rt.Add("GET /users/admin", limiter(t, core.FixedWindow{Quota: 1, Window: time.Hour})))
	m, err := middleware.NewSelect(rt, middleware.Options{})
	require.NoError(t, err)
	engine := gin.New()
	engine.Use(ginlimit.Limit(m, engine))
	engine.GET("/users/:id", ok)
	assert.Equal(t, []int{200, 429, 200}, []int{
		do(engine, "GET", "/users/admin", "192.0.2.1:1").Code,
		do(engine, "GET", "/users/admin", "192.0.2.1:1").Code,
		do(engine, "GET", "/users/7", "192.0.2.1:1").Code,
	})
}
