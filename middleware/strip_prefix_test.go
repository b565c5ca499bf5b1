package middleware_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
)

// A handler mounted under a prefix by the application's ServeMux behind
// http.StripPrefix ("/api/" serving "/api/v1/login" as "/v1/login") sees
// the outer mux's pattern in r.Pattern and a path that pattern no longer
// describes. Its routes, written for the paths it sees, are limited as
// they were before the served prefix was introduced: before this fix the
// stale "/api/" kept every path out, and "POST /v1/login" at 1 per hour
// admitted 3 of 3 logins (no default).
func TestRoutesBehindStripPrefix(t *testing.T) {
	for _, path := range []string{"/api/v1/login", "/api/v1/login/"} {
		m := quotaRoutes(t, false, quota{"POST /v1/login", 1})
		hits := 0
		inner := http.NewServeMux()
		inner.HandleFunc("POST /v1/login", func(http.ResponseWriter, *http.Request) { hits++ })
		inner.HandleFunc("POST /v1/login/", func(http.ResponseWriter, *http.Request) { hits++ })
		// The limiter wraps the application's router, not a *http.ServeMux
		// itself (a logging middleware, a framework): r.Pattern stays the
		// outer mux's.
		router := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { inner.ServeHTTP(w, r) })
		outer := http.NewServeMux()
		outer.Handle("/api/", http.StripPrefix("/api", m.Handler(router)))
		codes := make([]int, 0, 3)
		for range 3 {
			codes = append(codes, serve(outer, "POST", path, "192.0.2.1:1", nil))
		}
		assert.Equal(t, []int{200, 429, 429}, codes, path)
	}
}

// A router serving the decoded path (gin) serves "/admin%2F..%2Fhealthz"
// by "/admin/*p": the path that leaves "/admin/" only once decoded and
// cleaned is still counted under the template, not on "/healthz".
func TestEncodedSlashStaysUnderTheTemplate(t *testing.T) {
	m := quotaRoutes(t, false, quota{"/admin/", 1}, quota{"/healthz", 1000})
	assert.Equal(t, []int{200, 429, 429}, []int{
		begin(m, "GET", "/admin%2F..%2Fhealthz", "/admin/*p", "192.0.2.1:1"),
		begin(m, "GET", "/admin%2F..%2Fhealthz", "/admin/*p", "192.0.2.1:1"),
		begin(m, "GET", "/admin%2F..%2Fhealthz", "/admin/*p", "192.0.2.1:1"),
	})
}
