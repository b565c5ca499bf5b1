// Package httpbench measures HTTP handlers in benchmarks and allocation
// tests: the middleware's and every adapter's overhead benchmarks serve
// requests the same way.
package httpbench

import (
	"net/http"
	"testing"
)

// Sink is a ResponseWriter that keeps its header map and status and
// nothing else, so that a benchmark measures the handler chain and not a
// recorder.
type Sink struct {
	H    http.Header
	Code int
}

// NewSink returns a Sink with an empty header map.
func NewSink() *Sink { return &Sink{H: http.Header{}} }

// Header returns the header map.
func (s *Sink) Header() http.Header { return s.H }

// WriteHeader records code.
func (s *Sink) WriteHeader(code int) { s.Code = code }

// Write discards b.
func (s *Sink) Write(b []byte) (int, error) { return len(b), nil }

// Reset clears the header map, as a server's is new for every request, and
// the status (to 200, what a handler that writes nothing answers).
func (s *Sink) Reset() {
	clear(s.H)
	s.Code = http.StatusOK
}

// Serve serves r through h b.N times, reporting allocations, and fails the
// benchmark on any answer whose status is not want. The header map is
// reused (cleared) between requests.
func Serve(b *testing.B, h http.Handler, r *http.Request, want int) {
	b.Helper()
	w := NewSink()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		w.Reset()
		h.ServeHTTP(w, r)
		if w.Code != want {
			b.Fatalf("status %d, want %d", w.Code, want)
		}
	}
}
