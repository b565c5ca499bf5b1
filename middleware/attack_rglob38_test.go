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

// rglob38Case is a table of routes (quota an hour, in the order added,
// the default 1000) and a request sent thrice from one client: with a
// template (an adapter), r.Pattern and a host as given.
type rglob38Case struct {
	name               string
	routes             []quota
	method, path, host string
	template, pattern  string
}

// admitted38 returns how many of the three requests of c were admitted.
func admitted38(t *testing.T, c rglob38Case) int {
	t.Helper()
	m := quotaRoutesDefault(t, 1000, c.routes...)
	n := 0
	for range 3 {
		r := httptest.NewRequest(c.method, c.path, nil)
		r.RemoteAddr = "192.0.2.1:1"
		if c.host != "" {
			r.Host = c.host
		}
		r.Pattern = c.pattern
		if _, ok := m.Begin(httptest.NewRecorder(), r, c.template); ok {
			n++
		}
	}
	return n
}

// TestAttackRglob38OverlappingGlobsEachCharged: of several glob routes
// matching a request without a template, one was charged: the one
// Outranks picked, the first added when neither outranked the other. Two
// routes of one shape (one naming the request's host, one of another
// method list, chi's text after a parameter or a regexp, which Glob
// dropped) let the stricter, added second, go uncharged: 3 of 3 at 1 an
// hour. Each is charged now, all or nothing: 1 of 3.
func TestAttackRglob38OverlappingGlobsEachCharged(t *testing.T) {
	for _, c := range []rglob38Case{
		{name: "host", routes: []quota{{"GET /v:version/x", 1000}, {"GET api.example.com/v:version/x", 1}}, method: "GET", path: "/v2/x", host: "api.example.com"},
		{name: "method", routes: []quota{{"/v:version/x", 1000}, {"GET /v:version/x", 1}}, method: "GET", path: "/v2/x"},
		{name: "chi suffix", routes: []quota{{"GET /f/{name}.jpg", 1000}, {"GET /f/{name}.png", 1}}, method: "GET", path: "/f/x.png"},
		{name: "chi regexp", routes: []quota{{"GET /u{name}", 1000}, {"GET /u{id:[0-9]+}", 1}}, method: "GET", path: "/u12"},
		{name: "chi regexp across a slash", routes: []quota{{"GET /g/{name:.+}.png", 1}}, method: "GET", path: "/g/a/b.png"},
		{name: "other case of method", routes: []quota{{"/v:version/x", 1000}, {"GET /v:version/x", 1}}, method: "get", path: "/v2/x"},
	} {
		assert.Equal(t, 1, admitted38(t, c), c.name)
	}
	// The stricter added first stays charged (the reverse order).
	for _, c := range []rglob38Case{
		{name: "host", routes: []quota{{"GET /v:version/x", 1}, {"GET api.example.com/v:version/x", 1000}}, method: "GET", path: "/v2/x", host: "api.example.com"},
		{name: "chi regexp", routes: []quota{{"GET /u{id:[0-9]+}", 1}, {"GET /u{name}", 1000}}, method: "GET", path: "/u12"},
	} {
		assert.Equal(t, 1, admitted38(t, c), "reversed "+c.name)
	}
}

// TestAttackRglob38TemplateFindsItsGlobRoute: a router's template in other
// names than a glob route's finds it by its shape, but was only looked
// for when nothing else was found: a whole-segment route the path matches
// ("/{id}/x") took the request alone, and a route guarding every method
// of chi's Handle ("POST /v{ver}/login", r.Pattern listing the methods)
// was found by ServeMux before 0f90cee took such routes out of it. And
// under a catch-all template ("/legacy/*", whose handler routes further)
// a glob route of the path (found in ServeMux before 0f90cee for chi's
// syntax, never for gin's) went uncharged. 3 of 3 each; 1 of 3 now.
func TestAttackRglob38TemplateFindsItsGlobRoute(t *testing.T) {
	for _, c := range []rglob38Case{
		{name: "beside a whole segment", routes: []quota{{"GET /{id}/x", 1000}, {"GET /v{ver}/x", 1}}, method: "GET", path: "/v2/x", template: "/v{version}/x"},
		{name: "methods listed", routes: []quota{{"POST /v{ver}/login", 1}}, method: "GET", path: "/v1/login", template: "/v{version}/login", pattern: "GET,POST,PUT /v{version}/login"},
		{name: "under a catch-all, chi", routes: []quota{{"/legacy/*", 1000}, {"GET /legacy/v{version}/x", 1}}, method: "GET", path: "/legacy/v2/x", template: "/legacy/*"},
		{name: "under a catch-all, gin", routes: []quota{{"/legacy/*", 1000}, {"GET /legacy/v:version/x", 1}}, method: "GET", path: "/legacy/v2/x", template: "/legacy/*"},
	} {
		assert.Equal(t, 1, admitted38(t, c), c.name)
	}
}

// TestAttackRglob38TooManyOverlappingGlobsRefused: five routes of one
// shape (gin's and chi's syntax, with and without a method, one naming
// the host) all match GET api.example.com/v2/x, more than a request is
// charged on at once. At main the first added alone was charged (the
// loosest here: 3 of 3 past the last one's 1 an hour); a charge with no
// room for them all would leave one out. The request is refused with a
// configuration error instead: 0 of 3, reported to OnError, no panic.
func TestAttackRglob38TooManyOverlappingGlobsRefused(t *testing.T) {
	clk := newClock()
	rt := middleware.NewRoutes(limiter(t, clk, core.FixedWindow{Quota: 1000, Window: time.Hour}))
	for i, p := range []string{"/v:a/x", "GET /v:a/x", "/v{a}/x", "GET /v{a}/x", "GET api.example.com/v:a/x"} {
		n := int64(1000)
		if i == 4 {
			n = 1
		}
		require.NoError(t, rt.Add(p, limiter(t, clk, core.FixedWindow{Quota: n, Window: time.Hour})))
	}
	var errs []error
	m, err := middleware.NewSelect(rt, middleware.Options{OnError: func(_ *http.Request, err error) { errs = append(errs, err) }})
	require.NoError(t, err)
	admitted := 0
	for range 3 {
		r := httptest.NewRequest("GET", "/v2/x", nil)
		r.Host, r.RemoteAddr = "api.example.com", "192.0.2.1:1"
		if _, ok := m.Begin(httptest.NewRecorder(), r, ""); ok {
			admitted++
		}
	}
	assert.Equal(t, 0, admitted)
	require.Len(t, errs, 3)
	assert.ErrorIs(t, errs[0], core.ErrInvalidConfig)
}
