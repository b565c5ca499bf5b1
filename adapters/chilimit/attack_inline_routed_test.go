package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
	chimw "github.com/go-chi/chi/v5/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Limit inline on a catch-all route runs after chi has routed the
// request to it: the pattern chi names is the route serving it. Under a
// path-rewriting middleware (CleanPath) chi routes "/static/../admin/x"
// by its cleaned path to "/admin/*"; Limit looked the raw path up again
// on the root router, found "/static/*", and charged the request there.
func TestAttackInlineCatchAllKeepsTheRouteChiServed(t *testing.T) {
	t.Parallel()
	for _, inSub := range []bool{false, true} {
		m := selectOn(t, quota{"/admin/*", 1}, quota{"/static/*", 1000})
		hits := 0
		admin := func(http.ResponseWriter, *http.Request) { hits++ }
		r := chi.NewRouter()
		r.Use(chimw.CleanPath)
		r.With(chilimit.Limit(m)).Handle("/static/*", http.NotFoundHandler())
		if inSub {
			r.Route("/admin", func(s chi.Router) { s.With(chilimit.Limit(m)).HandleFunc("/*", admin) })
		} else {
			r.With(chilimit.Limit(m)).HandleFunc("/admin/*", admin)
		}
		codes := thrice(r, http.MethodGet, "/static/../admin/x")
		assert.Equal(t, []int{200, 429, 429}, codes, "sub-router %v", inSub)
		assert.Equal(t, 1, hits, "sub-router %v", inSub)
	}
}

// In a sub-router's Use, where chi names only the mount point, Limit
// looked the route up on the root router by the path as it came: under
// CleanPath, "/static/../api/login" found "/static/*" there, while chi
// routes it to "POST /api/login", and was charged on "/static/*" alone.
// "/static/../api", which chi routes to the sub-router by the mount
// point's own "/api" and serves with its catch-all, was charged so too
// (already before the sub-router fix, the mount point's "/api" being no
// catch-all). Limit now finds the route on the sub-router by the path chi
// routes there.
func TestAttackSubRouterUseKeepsToItsSubtree(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ route, method, path string }{
		{"POST /api/login", http.MethodPost, "/static/../api/login"},
		{"/api/*", http.MethodGet, "/static/../api"},
	} {
		rt := middleware.NewRoutes(nil)
		require.NoError(t, rt.Add(c.route, fixed(t, 1)))
		for _, p := range []string{"POST /api/login", "/api/*", "/static/*"} {
			if p != c.route {
				require.NoError(t, rt.Add(p, fixed(t, 1000)))
			}
		}
		m, err := middleware.NewSelect(rt, middleware.Options{})
		require.NoError(t, err)
		hits := 0
		h := func(http.ResponseWriter, *http.Request) { hits++ }
		r := chi.NewRouter()
		r.Use(chimw.CleanPath)
		r.With(chilimit.Limit(m)).Handle("/static/*", http.NotFoundHandler())
		r.Route("/api", func(s chi.Router) {
			s.Use(chilimit.Limit(m))
			s.Post("/login", h)
			s.HandleFunc("/*", h)
		})
		codes := thrice(r, c.method, c.path)
		assert.Equal(t, []int{200, 429, 429}, codes, c.path)
		assert.Equal(t, 1, hits, c.path)
	}
}

// A route the root router gives a mount point's own path after the mount
// ("GET /api" beside r.Route("/api", …)) is chi's route, not the
// sub-router's: Limit inline on it keeps it.
func TestLimitInlineOnAMountPointsPathKeepsItsRoute(t *testing.T) {
	t.Parallel()
	m := selectOn(t, quota{"GET /api", 1}, quota{"/api/*", 1000})
	hits := 0
	r := chi.NewRouter()
	r.Route("/api", func(s chi.Router) { s.HandleFunc("/*", func(http.ResponseWriter, *http.Request) {}) })
	r.With(chilimit.Limit(m)).Get("/api", func(http.ResponseWriter, *http.Request) { hits++ })
	codes := thrice(r, http.MethodGet, "/api")
	assert.Equal(t, []int{200, 429, 429}, codes)
	assert.Equal(t, 1, hits)
}
