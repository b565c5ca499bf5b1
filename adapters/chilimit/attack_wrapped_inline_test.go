package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
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
		m := selectOn(t, quota{c.route, 1}, quota{"/a/*", 1000})
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
		codes := thrice(r, c.method, c.path)
		assert.Equal(t, []int{200, 429, 429}, codes, "%s %s", c.method, c.path)
		assert.Equal(t, 1, hits, "%s %s", c.method, c.path)
	}
}
