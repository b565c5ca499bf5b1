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

// An application's subtree handler ("/admin/": a file server, a handler
// reading r.URL.Path as it comes) limited strictly is reached by requests
// whose path names a looser route under it once decoded, cleaned, its
// trailing slash toggled or in lower case: "/admin/x/%2E%2E/public",
// "/admin/PUBLIC", "/admin/public/", a CONNECT's "/admin//public". ServeMux
// serves them with the "/admin/" handler, yet the variant matched
// "/admin/public" (1000/hour), and 3 of 3 requests reached the admin
// handler limited to 1. A route found by a variant is now charged with the
// served pattern's route too, all or nothing: 1 of 3.
func TestAttackVariantLooserThanServedRoute(t *testing.T) {
	for _, c := range []struct{ public, method, path string }{
		{"/admin/public", "GET", "/admin/x/%2E%2E/public"},
		{"/admin/public", "POST", "/admin/x/%2e%2e/public"},
		{"/admin/public", "GET", "/admin/%2E/public"},
		{"GET /admin/public/{x}", "GET", "/admin/x/%2E%2E/public/y"},
		{"/admin/public", "GET", "/admin/PUBLIC"},
		{"/admin/public", "GET", "/admin/%50UBLIC"},
		{"/admin/public", "GET", "/admin/public/"},
		{"/admin/public", "CONNECT", "/admin/x/../public"},
		{"/admin/public", "CONNECT", "/admin//public"},
		{"/admin/public", "CONNECT", "/admin/./public"},
	} {
		codes, hits := muxRequests(t, "/admin/", "/admin/", c.public, c.method, c.path)
		assert.Equal(t, []int{200, 429, 429}, codes, "%s %s", c.method, c.path)
		assert.Equal(t, 1, hits, "%s %s", c.method, c.path)
	}
}

// Without a route holding the served pattern, the default limits the
// subtree's handler: a variant's looser route is charged with it.
func TestAttackVariantLooserThanTheDefault(t *testing.T) {
	_, codes, hits := underStrictDefault(t, "/admin/public", "/admin/", nil, "GET", "/admin/x/%2E%2E/public")
	assert.Equal(t, []int{200, 429, 429}, codes)
	assert.Equal(t, 1, hits)
}

// underStrictDefault sends method path 3 times through Routes limiting
// looser to 1000 an hour and anything else by a default of 1 an hour, in
// front of an application whose pattern served counts the requests its
// handler runs (hits) and whose patterns others answer too. It returns
// the handler chain for more requests.
func underStrictDefault(t *testing.T, looser, served string, others []string, method, path string) (h http.Handler, codes []int, hits int) {
	t.Helper()
	clk := newClock()
	rt := middleware.NewRoutes(limiter(t, clk, core.FixedWindow{Quota: 1, Window: time.Hour}))
	require.NoError(t, rt.Add(looser, limiter(t, clk, core.FixedWindow{Quota: 1000, Window: time.Hour})))
	m, err := middleware.NewSelect(rt, middleware.Options{})
	require.NoError(t, err)
	app := http.NewServeMux()
	app.HandleFunc(served, func(http.ResponseWriter, *http.Request) { hits++ })
	for _, p := range others {
		app.HandleFunc(p, func(http.ResponseWriter, *http.Request) {})
	}
	h = m.Handler(app)
	for range 3 {
		codes = append(codes, serve(h, method, path, "192.0.2.1:1", nil))
	}
	return h, codes, hits
}

// The variant's route still guards the handler a router within the
// subtree serves it with ("/api/" mounting a router that strips slashes):
// "/api/login/" is counted against "POST /api/login" (1) as well as "/api/"
// (3), all or nothing: a request the login route refuses takes nothing
// from the subtree's bucket, and one the subtree's route refuses nothing
// from the login's.
func TestVariantChargedWithTheServedRouteAllOrNothing(t *testing.T) {
	m := quotaRoutes(t, false, quota{"/api/", 3}, quota{"POST /api/login", 1})
	h := apiApp(m)
	ip := "192.0.2.1:1"
	assert.Equal(t, 200, serve(h, "POST", "/api/login/", ip, nil), "login 1/1, api 1/3")
	assert.Equal(t, 429, serve(h, "POST", "/api/login/", ip, nil), "login denies; api given back")
	assert.Equal(t, 429, serve(h, "POST", "/api/login", ip, nil), "the login route's own bucket")
	assert.Equal(t, 200, serve(h, "GET", "/api/x", ip, nil), "api 2/3")
	assert.Equal(t, 200, serve(h, "GET", "/api/y", ip, nil), "api 3/3")
	assert.Equal(t, 429, serve(h, "GET", "/api/z", ip, nil))

	m = quotaRoutes(t, false, quota{"/api/", 1}, quota{"POST /api/login", 2})
	h = apiApp(m)
	assert.Equal(t, 200, serve(h, "GET", "/api/x", ip, nil), "api 1/1")
	assert.Equal(t, 429, serve(h, "POST", "/api/login/", ip, nil), "api denies: login not charged")
	assert.Equal(t, 200, serve(h, "POST", "/api/login", ip, nil), "login 1/2")
	assert.Equal(t, 200, serve(h, "POST", "/api/login", ip, nil), "login 2/2")
	assert.Equal(t, 429, serve(h, "POST", "/api/login", ip, nil))
}

// A request charged on two routes is given back on both when CountIf does
// not count its status, and its headers describe the binding route's
// limit (the one with the least remaining).
func TestVariantChargedTwiceRefundsBoth(t *testing.T) {
	clk := newClock()
	rt := middleware.NewRoutes(nil)
	require.NoError(t, rt.Add("/admin/", limiter(t, clk, core.FixedWindow{Quota: 2, Window: time.Hour})))
	require.NoError(t, rt.Add("/admin/public", limiter(t, clk, core.FixedWindow{Quota: 1000, Window: time.Hour})))
	m, err := middleware.NewSelect(rt, middleware.Options{CountIf: func(s int) bool { return s >= 400 }})
	require.NoError(t, err)
	status := http.StatusOK
	app := http.NewServeMux()
	app.HandleFunc("/admin/", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(status) })
	h := m.Handler(app)
	do := func() *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", "/admin/x/%2E%2E/public", nil)
		r.RemoteAddr = "192.0.2.1:1"
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	for i := range 5 {
		w := do()
		require.Equal(t, 200, w.Code, i)
		assert.Equal(t, "1", w.Header().Get("X-RateLimit-Remaining"), "the binding route: /admin/'s 2 less 1")
	}
	status = http.StatusForbidden
	assert.Equal(t, 403, do().Code)
	assert.Equal(t, 403, do().Code)
	assert.Equal(t, 429, do().Code)
	status = http.StatusOK
	assert.Equal(t, 429, serve(h, "GET", "/admin/y", "192.0.2.1:1", nil), "the /admin/ route's own bucket")
}

// A CORS preflight charged by a variant's route is charged on both
// routes' preflight buckets, not their real requests' buckets.
func TestVariantPreflightKeepsItsOwnBuckets(t *testing.T) {
	m := quotaRoutes(t, false, quota{"GET /admin/", 1}, quota{"GET /admin/public", 1000})
	h := m.Handler(okHandler)
	pre := map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "GET"}
	ip := "192.0.2.1:1"
	assert.Equal(t, 200, serve(h, "OPTIONS", "/admin/x/%2E%2E/public", ip, pre))
	assert.Equal(t, 429, serve(h, "OPTIONS", "/admin/x/%2E%2E/public", ip, pre))
	assert.Equal(t, 200, serve(h, "GET", "/admin/x/%2E%2E/public", ip, nil), "the real requests' buckets are whole")
	assert.Equal(t, 429, serve(h, "GET", "/admin/y", ip, nil))
}
