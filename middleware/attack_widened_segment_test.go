package middleware_test

import (
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackBracesBesideTextTakeNoOtherRoute: chi's "/v{version}/x" was
// registered in ServeMux as "/{p1}/x", which matches any first segment.
// A request chi serves by another route ("/abc/x", a route not written,
// so the default's) was charged on the looser "/v{version}/x" route
// instead: 3 of 3 past a default of 1 an hour, with the template known
// (chilimit) and without (a limiter mounted before chi). Now the route
// matches the paths its template serves: 1 of 3.
func TestAttackBracesBesideTextTakeNoOtherRoute(t *testing.T) {
	for _, c := range []struct{ route, path, template string }{
		{"GET /v{version}/x", "/abc/x", "/abc/x"},
		{"GET /v{version}/x", "/abc/x", ""},
		{"GET /f/img-{id}.png", "/f/logo.svg", "/f/logo.svg"},
		{"GET /f/img-{id}.png", "/f/logo.svg", ""},
		{"GET /login{$}", "/admin", "/admin"},
		{"GET /login{$}", "/admin", ""},
	} {
		m := quotaRoutesDefault(t, 1, quota{c.route, 1000})
		var codes []int
		for range 3 {
			codes = append(codes, begin(m, "GET", c.path, c.template, "192.0.2.1:1"))
		}
		assert.Equal(t, []int{200, 429, 429}, codes, "%s under %s, template %q", c.path, c.route, c.template)
	}
}

// TestBracesBesideTextLimitTheirOwnPaths: the paths such a template
// serves are charged on its route, with the template as written, in
// other names (the route in gin's syntax, the router chi), and without
// a template (with the default then, all or nothing).
func TestBracesBesideTextLimitTheirOwnPaths(t *testing.T) {
	for _, c := range []struct{ route, path, template string }{
		{"GET /v{version}/x", "/v2/x", "/v{version}/x"},
		{"GET /v{version}/x", "/v2/x", "/v{ver}/x"},
		{"GET /v:version/x", "/v2/x", "/v{ver:[0-9]+}/x"},
		{"GET /v{version}/x", "/v2/x", ""},
		{"GET /f/img-{id}.png", "/f/img-1.png", ""},
		{"GET /login{$}", "/login", ""},
	} {
		m := quotaRoutesDefault(t, 1000, quota{c.route, 1})
		var codes []int
		for range 3 {
			codes = append(codes, begin(m, "GET", c.path, c.template, "192.0.2.1:1"))
		}
		assert.Equal(t, []int{200, 429, 429}, codes, "%s under %s, template %q", c.path, c.route, c.template)
	}
}

// quotaRoutesDefault is quotaRoutes with a default of def an hour.
func quotaRoutesDefault(t *testing.T, def int64, routes ...quota) *middleware.Middleware {
	t.Helper()
	clk := newClock()
	rt := middleware.NewRoutes(limiter(t, clk, core.FixedWindow{Quota: def, Window: time.Hour}))
	for _, r := range routes {
		require.NoError(t, rt.Add(r.pattern, limiter(t, clk, core.FixedWindow{Quota: r.n, Window: time.Hour})))
	}
	m, err := middleware.NewSelect(rt, middleware.Options{})
	require.NoError(t, err)
	return m
}
