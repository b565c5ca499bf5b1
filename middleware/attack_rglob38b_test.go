package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackRglob38bVariantsRouteNotOutrankedByAnotherPath: a glob route
// that a variant of the path alone matches was not charged when a glob
// route the path as it came matches "outranked" it, though that route
// does not match the variant: a rewriting router serves the variant by
// the variant's route. chi's CleanPath and gin's RemoveExtraSlash serve
// "/v1/products/../login" by "/v{version}/login" (1 an hour), echo's
// Pre(RemoveTrailingSlash()) serves "/v2/items/" by "/v:version/items";
// the limiter before the router charged the looser route the path itself
// matches ("/v{version}/products/", "/v:version/items/", 1000) and the
// default: 3 of 3. Now 1 of 3.
func TestAttackRglob38bVariantsRouteNotOutrankedByAnotherPath(t *testing.T) {
	for _, c := range []rglob38Case{
		{name: "chi clean", routes: []quota{{"GET /v{version}/products/", 1000}, {"GET /v{version}/login", 1}}, method: "GET", path: "/v1/products/../login"},
		{name: "gin clean", routes: []quota{{"GET /v:version/products/", 1000}, {"GET /v:version/login", 1}}, method: "GET", path: "/v1/products/../login"},
		{name: "echo strip", routes: []quota{{"GET /v:version/items/", 1000}, {"GET /v:version/items", 1}}, method: "GET", path: "/v2/items/"},
	} {
		assert.Equal(t, 1, admitted38(t, c), c.name)
	}
}

// TestAttackRglob38bEscapedColon: gin and echo read "\:" in a template as
// a literal colon ("/v1/books\:batchGet" serves "/v1/books:batchGet",
// Google's custom methods), and gin's template (FullPath) drops the
// backslash. A route written as registered in the router was read as
// text "books\" then a parameter, matching no path the router serves by
// it, and the template was found by no route: 3 of 3 at 1 an hour,
// before the router and with gin's template. Now 1 of 3; echo's template
// (c.Path(), with the backslash) found it already.
func TestAttackRglob38bEscapedColon(t *testing.T) {
	for _, c := range []rglob38Case{
		{name: "before the router", routes: []quota{{`POST /v1/books\:batchGet`, 1}}, method: "POST", path: "/v1/books:batchGet"},
		{name: "gin's template", routes: []quota{{`POST /v1/books\:batchGet`, 1}}, method: "POST", path: "/v1/books:batchGet", template: "/v1/books:batchGet"},
		{name: "at a segment's start", routes: []quota{{`GET /v1/\:x`, 1}}, method: "GET", path: "/v1/:x"},
		{name: "before a parameter", routes: []quota{{`GET /v1/a\:b:id`, 1}}, method: "GET", path: "/v1/a:b7"},
		{name: "echo's template", routes: []quota{{`POST /v1/books\:batchGet`, 1}}, method: "POST", path: "/v1/books:batchGet", template: `/v1/books\:batchGet`},
	} {
		assert.Equal(t, 1, admitted38(t, c), c.name)
	}
}

// TestRglob38bEscapedColonClash: a route written as gin reports an
// escaped colon's template is refused beside it, in either order: gin's
// one template would name both.
func TestRglob38bEscapedColonClash(t *testing.T) {
	for _, order := range [][2]string{{`POST /v1/books\:batchGet`, "POST /v1/books:batchGet"}, {"POST /v1/books:batchGet", `POST /v1/books\:batchGet`}} {
		rt := middleware.NewRoutes(nil)
		l := limiter(t, newClock(), core.FixedWindow{Quota: 1, Window: time.Hour})
		require.NoError(t, rt.Add(order[0], l))
		assert.ErrorIs(t, rt.Add(order[1], l), core.ErrInvalidConfig, order[1])
	}
}

// TestAttackRglob38bEchoLeafParamAndEmptyEnd: echo's parameter that ends
// a route and has no route below it takes the rest of the path, slashes
// too ("/v:version" serves "/v1/a/b"), which Glob matched as one
// segment: 3 of 3 at 1 an hour, the limiter before echo. And gin and echo
// serve "/ab" by "/a:y" (1 an hour) beside "/ab:x", whose parameter would
// be empty at the end of the path, which neither router takes there; the
// longer text "outranked" it: 3 of 3. Now 1 of 3 each.
func TestAttackRglob38bEchoLeafParamAndEmptyEnd(t *testing.T) {
	for _, c := range []rglob38Case{
		{name: "leaf", routes: []quota{{"GET /v:version", 1}}, method: "GET", path: "/v1/a/b"},
		{name: "leaf, whole segment", routes: []quota{{"GET /v:version/:id", 1}}, method: "GET", path: "/v1/a/b"},
		{name: "empty end", routes: []quota{{"GET /ab:x", 1000}, {"GET /a:y", 1}}, method: "GET", path: "/ab"},
		{name: "empty end, reversed", routes: []quota{{"GET /a:y", 1}, {"GET /ab:x", 1000}}, method: "GET", path: "/ab"},
	} {
		assert.Equal(t, 1, admitted38(t, c), c.name)
	}
}

// TestAttackRglob38bChiBracesNotOverflowing: chi's braces beside text
// were matched by their first and last text alone ("{w}x{h}.png" matched
// "cat.png"), so that a chi table of five image routes matched every
// ".png" request five times, with the default six routes, more than a
// charge holds: each was refused (403), 0 of 3 served for "/img/cat.png".
// The text between braces is required now, in order, as chi needs it:
// "/img/cat.png" matches two routes, 3 of 3 served (within its 100 an
// hour), while a path crafted to match all five is still refused, never
// charged on fewer.
func TestAttackRglob38bChiBracesNotOverflowing(t *testing.T) {
	routes := []quota{{"GET /img/{name}.{ext}", 100}, {"GET /img/{name}.png", 100}, {"GET /img/{w}x{h}.png", 100}, {"GET /img/{id}-{slug}.png", 100}, {"GET /img/{name}_{size}.png", 100}}
	assert.Equal(t, 3, admitted38(t, rglob38Case{routes: routes, method: "GET", path: "/img/cat.png"}))
	assert.Equal(t, 3, admitted38(t, rglob38Case{routes: routes, method: "GET", path: "/img/10x20.png"}))
	assert.Equal(t, 0, admitted38(t, rglob38Case{routes: routes, method: "GET", path: "/img/10x20-a_b.png"}))
	// Still charged on both where both match: 1 of 3 at the stricter's
	// 1 an hour.
	strict := []quota{{"GET /img/{name}.png", 1000}, {"GET /img/{w}x{h}.png", 1}}
	assert.Equal(t, 1, admitted38(t, rglob38Case{routes: strict, method: "GET", path: "/img/10x20.png"}))
}

// TestAttackRglob38bOutrankedLaterNotOverflowing: a request matching
// five chi routes of every method (1000 an hour each) and a GET route
// added after them that outranks them all ("/img/a:x", 1 an hour) was
// refused: the five overflowed the charge before the route pruning them
// was read. 0 of 3 served; now charged on "/img/a:x" and the default, as
// gin and echo serve it: 1 of 3.
func TestAttackRglob38bOutrankedLaterNotOverflowing(t *testing.T) {
	var routes []quota
	for _, p := range []string{"/img/{name}.{ext}", "/img/{name}.png", "/img/{w}x{h}.png", "/img/{id}-{slug}.png", "/img/{name}_{size}.png"} {
		routes = append(routes, quota{p, 1000})
	}
	routes = append(routes, quota{"GET /img/a:x", 1})
	assert.Equal(t, 1, admitted38(t, rglob38Case{routes: routes, method: "GET", path: "/img/ax1-b_c.png"}))
}

// TestAttackRglob38bPreflightOverNotAnnounced: a CORS preflight reaching
// more routes by its own method than a charge holds (five chi routes of
// every method, 1 an hour each) was not refused: Routes reported no route
// of its own, and the preflight was limited as the GET it announces, by
// a GET route outranking those five (1000): 3 of 3 served. Refused now, as
// the request would be: 0 of 3.
func TestAttackRglob38bPreflightOverNotAnnounced(t *testing.T) {
	clk := newClock()
	rt := middleware.NewRoutes(limiter(t, clk, core.FixedWindow{Quota: 1000, Window: time.Hour}))
	for _, p := range []string{"/img/{name}.{ext}", "/img/{name}.png", "/img/{w}x{h}.png", "/img/{id}-{slug}.png", "/img/{name}_{size}.png"} {
		require.NoError(t, rt.Add(p, limiter(t, clk, core.FixedWindow{Quota: 1, Window: time.Hour})))
	}
	require.NoError(t, rt.Add("GET /img/a:x", limiter(t, clk, core.FixedWindow{Quota: 1000, Window: time.Hour})))
	m, err := middleware.NewSelect(rt, middleware.Options{})
	require.NoError(t, err)
	n := 0
	for range 3 {
		r := httptest.NewRequest(http.MethodOptions, "/img/ax1-b_c.png", nil)
		r.RemoteAddr = "192.0.2.1:1"
		r.Header.Set("Origin", "https://app.example")
		r.Header.Set("Access-Control-Request-Method", "GET")
		if _, ok := m.Begin(httptest.NewRecorder(), r, ""); ok {
			n++
		}
	}
	assert.Equal(t, 0, n)
}
