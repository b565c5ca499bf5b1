package chilimit_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/go-chi/chi/v5"
	chimw "github.com/go-chi/chi/v5/middleware"
	"github.com/stretchr/testify/assert"
)

// One Middleware met twice (the root router's Use and a sub-router's)
// with a middleware between that wraps the body (chi's RequestSize, or
// any http.MaxBytesReader in place) charged every request twice, its
// decision taken for another request's by the body alone: 4 POSTs at 4
// an hour, the 3rd and 4th refused. The body is read by nothing a
// decision charges by but the key, cost, Skip and Selector, which the
// charge compared again reads: 4 of 4 now.
func TestTwiceBodyWrappedBetweenChargesOnce(t *testing.T) {
	t.Parallel()
	m := selectOn(t, quota{"POST /api/x", 4})
	lim := chilimit.Limit(m)
	r := chi.NewRouter()
	r.Use(lim, chimw.RequestSize(1<<10))
	r.Route("/api", func(s chi.Router) {
		s.Use(lim)
		s.Post("/x", func(http.ResponseWriter, *http.Request) {})
	})
	var codes []int
	for range 5 {
		req := httptest.NewRequest(http.MethodPost, "/api/x", strings.NewReader("body"))
		req.RemoteAddr = "192.0.2.1:1"
		w := httptest.NewRecorder()
		r.ServeHTTP(w, req)
		codes = append(codes, w.Code)
	}
	assert.Equal(t, []int{200, 200, 200, 200, 429}, codes)
}
