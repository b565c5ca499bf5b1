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
