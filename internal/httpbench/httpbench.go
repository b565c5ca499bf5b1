// Package httpbench measures HTTP handlers in benchmarks: the middleware's
// and every adapter's overhead benchmarks serve requests the same way.
package httpbench

import (
	"net/http"
	"testing"
)

// sink is a ResponseWriter that keeps nothing, so that a benchmark measures
// the handler chain and not a recorder.
type sink struct {
	h    http.Header
	code int
}

func (s *sink) Header() http.Header         { return s.h }
func (s *sink) WriteHeader(code int)        { s.code = code }
func (s *sink) Write(b []byte) (int, error) { return len(b), nil }

// Serve serves r through h b.N times, reporting allocations, and fails the
// benchmark on any answer whose status is not want. The header map is
// reused (cleared) between requests.
func Serve(b *testing.B, h http.Handler, r *http.Request, want int) {
	b.Helper()
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
