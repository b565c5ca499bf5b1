package ginlimit_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/internal/httpbench"

	"github.com/floodgate-go/floodgate/adapters/ginlimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/gin-gonic/gin"
)

// BenchmarkOverhead is the cost of the limiter (allow path, every header
// on) over the same gin engine without it.
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
			e := gin.New()
			if limited {
				e.Use(ginlimit.Limit(m, e))
			}
			e.GET("/users/:id", ok)
			req := httptest.NewRequest(http.MethodGet, "/users/42", nil)
			httpbench.Serve(b, e, req, http.StatusOK)
		})
	}
}
