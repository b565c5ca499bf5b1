package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/go-chi/chi/v5"
	chimw "github.com/go-chi/chi/v5/middleware"
	"github.com/stretchr/testify/assert"
)

// A sub-router whose Use rewrites its routing path before the limiter
// (chi's StripSlashes) serves the rewritten path: the limiter in that Use
// must find the route by it, as it did before 5d5511d. "/a/admin/" is
// served by the sub-router's "/admin" (1 an hour) once StripSlashes has
// dropped its slash, and "/a/admin//" by its "/{x}/" ("/a/{x}", 1 an
// hour); found by the path the mount handler gave ("/admin/",
// "/admin//"), they were limited as "/a/{x}" and "/a/{x}/*" (1000 an
// hour) and ran 3 of 3. 5d5511d was withdrawn; this guards its case.
func TestAttackRchi37SubRouterRewrittenPathCharged(t *testing.T) {
	t.Parallel()
	for path, strict := range map[string]string{"/a/admin/": "GET /a/admin", "/a/admin//": "GET /a/{x}"} {
		loose := map[string]string{"/a/admin/": "GET /a/{x}", "/a/admin//": "GET /a/{x}/*"}[path]
		m := selectOn(t, quota{strict, 1}, quota{loose, 1000})
		hits := 0
		h := func(http.ResponseWriter, *http.Request) { hits++ }
		sub := chi.NewRouter()
		sub.Use(chimw.StripSlashes, chilimit.Limit(m))
		sub.Get("/admin", h)
		sub.Get("/{x}/", h)
		sub.Get("/{x}/*", h)
		r := chi.NewRouter()
		r.Mount("/a", sub)
		assert.Equal(t, []int{200, 429, 429}, thrice(r, http.MethodGet, path), path)
		assert.Equal(t, 1, hits, path)
	}
}
