package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
)

// sink is a ResponseWriter that keeps nothing, so that benchmarks measure
// the handler chain and not a recorder.
type sink struct {
	h    http.Header
	code int
}

func (s *sink) Header() http.Header         { return s.h }
func (s *sink) WriteHeader(code int)        { s.code = code }
func (s *sink) Write(b []byte) (int, error) { return len(b), nil }

// benchServe serves r through h b.N times, every header on, and checks
// each answer has status want.
func benchServe(b *testing.B, h http.Handler, want int) {
	r := httptest.NewRequest(http.MethodGet, "/hello", nil)
	w := &sink{h: http.Header{}}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		clear(w.h)
		w.code = http.StatusOK
		h.ServeHTTP(w, r)
		if w.code != want {
			b.Fatalf("status %d, want %d", w.code, want)
		}
	}
}

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
	b.Run("bare", func(b *testing.B) { benchServe(b, handler, http.StatusOK) })
	b.Run("limited", func(b *testing.B) {
		benchServe(b, mk(core.GCRA{Rate: core.PerSecond(1_000_000_000)}), http.StatusOK)
	})
	b.Run("denied", func(b *testing.B) {
		h := mk(core.GCRA{Rate: core.Per(1, 24*time.Hour)})
		h.ServeHTTP(&sink{h: http.Header{}}, httptest.NewRequest(http.MethodGet, "/hello", nil))
		benchServe(b, h, http.StatusTooManyRequests)
	})
}
