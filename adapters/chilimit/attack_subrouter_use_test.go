package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
)

// Limit in the Use of a sub-router made by Route or Mount runs before that
// router routes, where chi names only the mount point ("/api/*"): the
// pattern of the sub-router's catch-all, or of a route limiting the whole
// subtree, too. Limit now finds the route chi will serve the request with,
// as LimitMux does. Before, "POST /api/login" and "GET /v1/users/{id}" (1
// an hour) were charged on the subtree's limit (1000): 3 of 3 ran.
func TestAttackSubRouterUseLimitsTheRouteServed(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ route, subtree, method, path string }{
		{"POST /api/login", "/api/*", http.MethodPost, "/api/login"},
		{"GET /v1/users/{id}", "/v1/*", http.MethodGet, "/v1/users/7"},
	} {
		m := selectOn(t, quota{c.route, 1}, quota{c.subtree, 1000})
		hits := 0
		h := func(http.ResponseWriter, *http.Request) { hits++ }
		r := chi.NewRouter()
		r.Route("/api", func(s chi.Router) {
			s.Use(chilimit.Limit(m))
			s.Post("/login", h)
			s.HandleFunc("/*", func(http.ResponseWriter, *http.Request) {})
		})
		v1 := chi.NewRouter()
		v1.Use(chilimit.Limit(m))
		v1.Get("/users/{id}", h)
		r.Mount("/v1", v1)
		codes := thrice(r, c.method, c.path)
		assert.Equal(t, []int{200, 429, 429}, codes, c.path)
		assert.Equal(t, 1, hits, c.path)
	}
}
