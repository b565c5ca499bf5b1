package chilimit_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/internal/stacktest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
)

// The one-liner on the root router counts every request of a client IP:
// HEAD of a GET route and requests chi answers 404 or 405 included.
// (The behaviour table in adapters/stacks checks its answers against
// net/http's, preflights and IPv6 included.)
func TestPerIPCountsEveryRequest(t *testing.T) {
	r := chi.NewRouter()
	r.Use(chilimit.MustPerIP("3/hour"))
	r.Get("/hello", ok)
	stacktest.CheckPerIPCountsEveryRequest(t, r, http.StatusMethodNotAllowed)
}

// A preflight reaching a handler serving OPTIONS (Handle's, Options') is
// counted in the client's bucket, though chi has not routed it when the
// one-liner runs: before, it got a bucket of its own, a second budget.
func TestPerIPPreflightReachingHandler(t *testing.T) {
	stacktest.CheckPerIPPreflights(t, func(h http.Handler) http.Handler {
		r := chi.NewRouter()
		r.Use(chilimit.MustPerIP("1/hour"))
		r.Handle("/any", h)
		r.Method(http.MethodOptions, "/opt", h)
		r.Method(http.MethodGet, "/get", h)
		return r
	})
}

// Limit on the root router's Use and LimitMux count a preflight reaching a
// handler of an OPTIONS route alone (r.Options) in the client's bucket,
// with a single limiter, a keyed one or Routes' default: before, the route
// table gave no pattern for a handler of one method, so the preflight got a
// bucket of its own, a second budget.
func TestLimitPreflightReachingHandler(t *testing.T) {
	for name, mount := range map[string]func(m *middleware.Middleware, r chi.Router) func(http.Handler) http.Handler{
		"Limit": func(m *middleware.Middleware, _ chi.Router) func(http.Handler) http.Handler { return chilimit.Limit(m) },
		"LimitMux": func(m *middleware.Middleware, r chi.Router) func(http.Handler) http.Handler {
			return chilimit.LimitMux(m, r)
		},
	} {
		t.Run(name, func(t *testing.T) {
			stacktest.CheckLimitPreflights(t, func(m *middleware.Middleware, h http.Handler) http.Handler {
				r := chi.NewRouter()
				r.Use(mount(m, r))
				r.Handle("/any", h)
				r.Options("/opt", h.ServeHTTP)
				r.Get("/get", h.ServeHTTP)
				return r
			})
		})
	}
}

// An invalid rate is PerIP's error, naming the column; MustPerIP panics
// with it when the router is built.
func TestPerIPInvalidRate(t *testing.T) {
	stacktest.CheckPerIPInvalidRate(t, chilimit.PerIP, chilimit.MustPerIP)
}

// Limit inline, where chi has routed, counts a preflight reaching a
// handler of an OPTIONS route alone in the client's bucket, as the OPTIONS
// request it is: chi sets r.Pattern to the route's pattern when it routes
// (a pattern without a method, serving every method).
func TestLimitInlinePreflightReachingHandler(t *testing.T) {
	hits := 0
	h := func(http.ResponseWriter, *http.Request) { hits++ }
	r := chi.NewRouter()
	r.Group(func(g chi.Router) {
		g.Use(chilimit.Limit(middleware.MustPerIP("1/hour")))
		g.Options("/opt", h)
		g.Get("/get", h)
	})
	do := func(method, path string, preflight bool) int {
		req := httptest.NewRequest(method, path, nil)
		if preflight {
			req.Header.Set("Origin", "https://app.example")
			req.Header.Set("Access-Control-Request-Method", "GET")
		}
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		return w.Code
	}
	assert.Equal(t, http.StatusOK, do("GET", "/get", false))
	assert.Equal(t, http.StatusTooManyRequests, do("OPTIONS", "/opt", true))
	assert.Equal(t, 1, hits, "the handler ran for the preflight")
}
