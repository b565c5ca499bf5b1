package chilimit_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/go-chi/chi/v5"
	chimw "github.com/go-chi/chi/v5/middleware"
	"github.com/stretchr/testify/assert"
)

// TestRealIPAfterTheLimiter: chi's middleware.RealIP rewrites RemoteAddr
// from the True-Client-IP, X-Real-IP or X-Forwarded-For of any request.
// Mounted after the limiter, as the package documentation says, it leaves
// the limiter the peer: 5 requests of one client with 5 made-up addresses
// are admitted 2 times at a limit of 2 (mounted before it, 5 times).
func TestRealIPAfterTheLimiter(t *testing.T) {
	t.Parallel()
	r := chi.NewRouter()
	r.Use(chilimit.MustPerIP("2/hour"))
	//lint:ignore SA1019 the deprecated middleware is what such applications mount
	r.Use(chimw.RealIP)
	r.Get("/", ok)
	admitted := 0
	for i := range 5 {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.RemoteAddr = "203.0.113.9:4000"
		req.Header.Set("X-Forwarded-For", "198.51.100."+strconv.Itoa(i))
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		if w.Code == http.StatusOK {
			admitted++
		}
	}
	assert.Equal(t, 2, admitted)
}
