package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/internal/httpbench"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
)

// BenchmarkOverhead is the cost of the middleware over the bare handler,
// on the allow path and the deny path, with X-RateLimit-*, Retry-After and
// the IETF fields written.
func BenchmarkOverhead(b *testing.B) {
	handler := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	mk := func(a core.Algorithm) http.Handler {
		l, err := core.NewLimiter(core.MustPolicy("api", core.Limit{Name: "api", Algorithm: a}))
		if err != nil {
			b.Fatal(err)
		}
		m, err := middleware.New(l, middleware.Options{})
		if err != nil {
			b.Fatal(err)
		}
		return m.Handler(handler)
	}
	req := httptest.NewRequest(http.MethodGet, "/hello", nil)
	b.Run("bare", func(b *testing.B) { httpbench.Serve(b, handler, req, http.StatusOK) })
	b.Run("limited", func(b *testing.B) {
		httpbench.Serve(b, mk(core.GCRA{Rate: core.PerSecond(1_000_000_000)}), req, http.StatusOK)
	})
	b.Run("denied", func(b *testing.B) {
		h := mk(core.GCRA{Rate: core.Per(1, 24*time.Hour)})
		h.ServeHTTP(httptest.NewRecorder(), req) // spends the one unit
		httpbench.Serve(b, h, req, http.StatusTooManyRequests)
	})
}

// BenchmarkRoutes is the middleware's cost on the allow path when Routes
// picks the limiter: a ServeMux of three routes, each of its own limiter,
// and a request to one of them.
func BenchmarkRoutes(b *testing.B) {
	handler := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	rt := middleware.NewRoutes(nil)
	mux := http.NewServeMux()
	for _, p := range []string{"GET /users/{id}", "POST /login", "/static/"} {
		l, err := core.NewLimiter(core.MustPolicy("r", core.Limit{Name: "r", Algorithm: core.GCRA{Rate: core.PerSecond(1_000_000_000)}}))
		if err != nil {
			b.Fatal(err)
		}
		if err := rt.Add(p, l); err != nil {
			b.Fatal(err)
		}
		mux.Handle(p, handler)
	}
	m, err := middleware.NewSelect(rt, middleware.Options{})
	if err != nil {
		b.Fatal(err)
	}
	httpbench.Serve(b, m.Handler(mux), httptest.NewRequest(http.MethodGet, "/users/7", nil), http.StatusOK)
}
