package echolimit_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/labstack/echo/v4"
)

type sink struct {
	h    http.Header
	code int
}

func (s *sink) Header() http.Header         { return s.h }
func (s *sink) WriteHeader(code int)        { s.code = code }
func (s *sink) Write(b []byte) (int, error) { return len(b), nil }

// BenchmarkOverhead is the cost of the limiter (allow path, every header
// on) over the same echo server without it.
func BenchmarkOverhead(b *testing.B) {
	m, err := middleware.New(limiter(b, core.GCRA{Rate: core.PerSecond(1_000_000_000)}), middleware.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, limited := range []bool{false, true} {
		name := "bare"
		if limited {
			name = "limited"
		}
		b.Run(name, func(b *testing.B) {
			e := echo.New()
			if limited {
				e.Use(echolimit.Limit(m))
			}
			e.GET("/users/:id", ok)
			req := httptest.NewRequest(http.MethodGet, "/users/42", nil)
			w := &sink{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				clear(w.h)
				w.code = 200
				e.ServeHTTP(w, req)
				if w.code != 200 {
					b.Fatal(w.code)
				}
			}
		})
	}
}
