package echolimit_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/internal/httpbench"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/labstack/echo/v4"
)

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
			httpbench.Serve(b, e, req, http.StatusOK)
		})
	}
}
