package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
)

// A route naming a host is one route for every spelling of that host
// (DNS names are case-insensitive; a trailing dot names the same host):
// a router that ignores the host (chi, gin, echo, a catch-all handler)
// serves them all with the route's handler, so none gets a fresh bucket,
// through ServeMux matching or an adapter's template alike. Before, each
// spelling was unlimited.
func TestAttackHostSpellingsShareTheRouteBucket(t *testing.T) {
	for _, host := range []string{"API.EXAMPLE.COM", "api.example.com.", "Api.Example.Com.:443", "api.EXAMPLE.com:8080"} {
		t.Run(host, func(t *testing.T) {
			m := routesMiddleware(t, middleware.Options{}, 1, "POST api.example.com/login")
			at := func(host, template string) int {
				r := httptest.NewRequest("POST", "/login", nil)
				r.Host = host
				r.RemoteAddr = "192.0.2.1:1"
				w := httptest.NewRecorder()
				if template == "-" {
					m.Handler(okHandler).ServeHTTP(w, r)
					return w.Code
				}
				if _, ok := m.Begin(w, r, template); !ok {
					return w.Code
				}
				return http.StatusOK
			}
			assert.Equal(t, 200, at("api.example.com", "-"))
			assert.Equal(t, 429, at(host, "-"), "through ServeMux matching")
			assert.Equal(t, 429, at(host, "/login"), "with a router's template")
		})
	}
	t.Run("other hosts stay apart", func(t *testing.T) {
		m := routesMiddleware(t, middleware.Options{}, 1, "POST api.example.com/login")
		h := m.Handler(okHandler)
		for _, host := range []string{"api.example.com", "www.example.com", "example.com", "api.example.co", ""} {
			r := httptest.NewRequest("POST", "/login", nil)
			r.Host = host
			r.RemoteAddr = "192.0.2.1:1"
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			assert.Equal(t, 200, w.Code, host)
		}
	})
}
