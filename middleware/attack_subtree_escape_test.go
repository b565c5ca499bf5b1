package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
)

// An application's subtree handler ("/admin/", "GET /files/{p...}") limited
// strictly is reached by requests whose path holds an encoded dot segment
// ("/admin/%2E%2E/healthz"): ServeMux matches the escaped path and does not
// resolve it, so the request is served by the subtree's handler. It is
// limited in the subtree's bucket, not in the bucket of another route the
// decoded path would name once cleaned ("/healthz"), which its handler never
// serves. Before, the variants of the decoded path left the subtree, and
// every such request was counted on the looser route the client chose.
func TestAttackEncodedDotsDoNotLeaveTheAppsSubtree(t *testing.T) {
	for _, c := range []struct{ app, route, method, path string }{
		{"/admin/", "/admin/", "GET", "/admin/%2E%2E/healthz"},
		{"/admin/", "/admin/", "POST", "/admin/%2e%2e/healthz/"},
		{"/admin/", "/admin/", "GET", "/admin/x/%2E%2E/%2E%2E/healthz"},
		{"GET /files/{p...}", "GET /files/{p...}", "GET", "/files/%2E%2E/healthz"},
		{"api.example.com/v1/", "api.example.com/v1/", "GET", "/v1/%2E%2E/healthz"},
		// ServeMux does not clean a CONNECT request's path: its dot
		// segments reach the subtree's handler too.
		{"/admin/", "/admin/", "CONNECT", "/admin/../healthz"},
		{"/admin/", "/admin/", "CONNECT", "/admin/.."},
	} {
		codes, hits := subtreeRequests(t, c.app, c.route, c.method, c.path)
		assert.Equal(t, []int{200, 429, 429}, codes, "%s %s to %q", c.method, c.path, c.app)
		assert.Equal(t, 1, hits, "%s %s to %q", c.method, c.path, c.app)
	}
}

// The variants stay under the served pattern's or template's literal
// start, that start's own path without its slash included: a handler of
// its own at "/login/" (a router's template, or the application's
// "/login/") is still counted against "POST /login", as every router
// that strips a trailing slash would serve it.
func TestTrailingSlashVariantKeptUnderTheTemplate(t *testing.T) {
	m := quotaRoutes(t, true, quota{"POST /login", 1})
	assert.Equal(t, []int{200, 429}, []int{
		begin(m, "POST", "/login/", "/login/", "192.0.2.1:1"),
		begin(m, "POST", "/login/", "/login/", "192.0.2.1:1"),
	})
	app := http.NewServeMux()
	app.HandleFunc("/login/", func(http.ResponseWriter, *http.Request) {})
	h := quotaRoutes(t, true, quota{"POST /login", 1}).Handler(app)
	assert.Equal(t, []int{200, 429}, []int{
		serve(h, "POST", "/login/", "192.0.2.1:1", nil), serve(h, "POST", "/login/", "192.0.2.1:1", nil),
	})
}

// subtreeRequests sends method path three times to an application
// ServeMux serving app (counting its runs) and "/healthz", behind routes
// of route at 1 and "/healthz" at 1000: the status codes, and how often
// app's handler ran.
func subtreeRequests(t *testing.T, app, route, method, path string) (codes []int, hits int) {
	t.Helper()
	return muxRequests(t, app, route, "/healthz", method, path)
}

// pairRequests is subtreeRequests with other in place of "/healthz", its
// route written as its pattern.
func pairRequests(t *testing.T, app, other, method, path string) (codes []int, hits int) {
	t.Helper()
	return muxRequests(t, app, app, other, method, path)
}

// muxRequests sends method path three times to an application ServeMux
// serving app (counting its runs) and other, behind routes of route at 1
// and other at 1000: the status codes, and how often app's handler ran.
func muxRequests(t *testing.T, app, route, other, method, path string) (codes []int, hits int) {
	t.Helper()
	m := quotaRoutes(t, false, quota{route, 1}, quota{other, 1000})
	mux := http.NewServeMux()
	mux.HandleFunc(app, func(http.ResponseWriter, *http.Request) { hits++ })
	mux.HandleFunc(other, func(http.ResponseWriter, *http.Request) {})
	h := m.Handler(mux)
	for range 3 {
		r := httptest.NewRequest(method, path, nil)
		r.Host = "api.example.com"
		r.RemoteAddr = "192.0.2.1:1"
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		codes = append(codes, w.Code)
	}
	return codes, hits
}
