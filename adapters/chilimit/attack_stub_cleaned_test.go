package chilimit_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
	chimw "github.com/go-chi/chi/v5/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// GET /x/../b reaches the root's catch-all "/*" as it comes; chi's
// CleanPath after the limiter routes it as "/b", to the "/" of the
// sub-router r.Route("/b", …): its route "/b/" (1 an hour) guards the
// handler served. Reaches asked chi where "/b" goes, got the mount
// point's own pattern "/b" (as chi's Find names it), compared it with
// "/b/" and dropped the route: 3 of 3 ran the "/b/" handler.
func TestAttackCleanedToAMountPointChargedOnItsRoute(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"LimitMux", "Limit"} {
		rt := middleware.NewRoutes(nil)
		require.NoError(t, rt.Add("/b/", fixed(t, 1)))
		require.NoError(t, rt.Add("/*", fixed(t, 1000)))
		m, err := middleware.NewSelect(rt, middleware.Options{Key: func(*http.Request) (string, error) { return "k", nil }})
		require.NoError(t, err)
		r := chi.NewRouter()
		if mode == "LimitMux" {
			r.Use(chilimit.LimitMux(m, r))
		} else {
			r.Use(chilimit.Limit(m))
		}
		r.Use(chimw.CleanPath)
		hits := 0
		r.Route("/b", func(s chi.Router) {
			s.Get("/{id}", func(http.ResponseWriter, *http.Request) {})
			s.Get("/", func(http.ResponseWriter, *http.Request) { hits++ })
		})
		r.HandleFunc("/*", func(http.ResponseWriter, *http.Request) {})
		var codes []int
		for range 3 {
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			req.URL.Path = "/x/../b"
			w := httptest.NewRecorder()
			r.ServeHTTP(w, req)
			codes = append(codes, w.Code)
		}
		assert.Equal(t, []int{200, 429, 429}, codes, mode)
		assert.Equal(t, 1, hits, mode)
	}
}
