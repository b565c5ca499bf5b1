package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/go-chi/chi/v5"
	chimw "github.com/go-chi/chi/v5/middleware"
	"github.com/stretchr/testify/assert"
)

// A limiter outside a sub-router (LimitMux, Limit in the root's Use or
// inline on the mount point) whose Use strips slashes found "/a/admin/"
// by the path as it comes: the sub-router's "/{x}/" ("/a/{x}", 1000 an
// hour), which the path finds, so no variant was tried; chi serves it,
// its slash stripped, with "/admin" ("GET /a/admin", 1 an hour): 3 of 3
// ran. Older than the commits reviewed by rchi37. A route under a
// sub-router whose Use holds a middleware other than a limiter, reached
// by a limiter outside it, is now charged on the route a variant of its
// path names as well, all or nothing.
func TestAttackRchi37RewriteInSubRouterUseAfterLimiter(t *testing.T) {
	t.Parallel()
	for _, where := range []string{"mux", "root", "inline"} {
		m := selectOn(t, quota{"GET /a/admin", 1}, quota{"GET /a/{x}", 1000})
		lim := chilimit.Limit(m)
		hits := 0
		h := func(http.ResponseWriter, *http.Request) { hits++ }
		sub := chi.NewRouter()
		sub.Use(chimw.StripSlashes)
		sub.Get("/admin", h)
		sub.Get("/{x}/", h)
		r := chi.NewRouter()
		switch where {
		case "mux":
			r.Use(chilimit.LimitMux(m, r))
			r.Mount("/a", sub)
		case "root":
			r.Use(lim)
			r.Mount("/a", sub)
		case "inline":
			r.With(lim).Mount("/a", sub)
		}
		assert.Equal(t, []int{200, 429, 429}, thrice(r, http.MethodGet, "/a/admin/"), where)
		assert.Equal(t, 1, hits, where)
	}
}
