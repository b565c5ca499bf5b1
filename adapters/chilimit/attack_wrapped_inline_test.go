package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A chi router mounted behind a plain handler (an authentication or
// tracing middleware: r.Mount("/a", auth(sub))) is invisible to the root
// router's Routes and Find. Limit inline on one of its routes runs after
// chi found the route; it took the root's mount point ("/a/*") instead,
// because the root's table does not list the route, and the route's own
// limit was never charged.
func TestAttackInlineInAWrappedRouterKeepsItsRoute(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ route, method, path string }{
		{"GET /a/{id}/*", http.MethodGet, "/a/42/x"},
		{"GET /a/{id}/*", http.MethodGet, "/a/42"},
		{"POST /a/login", http.MethodPost, "/a/login"},
	} {
		rt := middleware.NewRoutes(nil)
		require.NoError(t, rt.Add(c.route, fixed(t, 1)))
		require.NoError(t, rt.Add("/a/*", fixed(t, 1000)))
		m, err := middleware.NewSelect(rt, middleware.Options{})
		require.NoError(t, err)
		hits := 0
		h := func(http.ResponseWriter, *http.Request) { hits++ }
		sub := chi.NewRouter()
		sub.Route("/{id}", func(s chi.Router) { s.With(chilimit.Limit(m)).Get("/*", h) })
		sub.With(chilimit.Limit(m)).Post("/login", h)
		wrap := func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { next.ServeHTTP(w, r) })
		}
		r := chi.NewRouter()
		r.Mount("/a", wrap(sub))
		var codes []int
		for range 3 {
			codes = append(codes, from(r, c.method, c.path, "192.0.2.1:1"))
		}
		assert.Equal(t, []int{200, 429, 429}, codes, "%s %s", c.method, c.path)
		assert.Equal(t, 1, hits, "%s %s", c.method, c.path)
	}
}
