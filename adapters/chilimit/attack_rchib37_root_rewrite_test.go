package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/go-chi/chi/v5"
	chimw "github.com/go-chi/chi/v5/middleware"
	"github.com/stretchr/testify/assert"
)

// chi's StripSlashes in the root router's own Use, after the limiter
// (r.Use(LimitMux(m, r), StripSlashes), or Limit there), rewrites the
// routing path once the limiter has found the route by the path as it
// came: "/a/admin/" found the sub-router's "/{x}/" ("GET /a/{x}", 1000 an
// hour), which chi never reaches behind StripSlashes, and was served by
// "/admin" ("GET /a/admin", 1 an hour): 3 of 3 ran. A root whose Use holds
// chi's StripSlashes or CleanPath now has its requests charged, all or
// nothing, on the route a variant of the path names too; the canonical
// "/a/admin" and "/a/x/" keep their own route alone.
func TestAttackRchib37RootStripSlashesAfterLimiter(t *testing.T) {
	t.Parallel()
	rootRewriteAfterLimiter(t, chimw.StripSlashes, "/{x}/", "GET /a/{x}", "/a/admin/")
}

// chi's CleanPath in the root's Use after the limiter routes
// "/a/b/../admin" as "/a/admin" (1 an hour), where the path as it came
// finds "/a/{x}/{y}/{z}" (1000 an hour): 3 of 3 ran.
func TestAttackRchib37RootCleanPathAfterLimiter(t *testing.T) {
	t.Parallel()
	rootRewriteAfterLimiter(t, chimw.CleanPath, "/{x}/{y}/{z}", "GET /a/{x}/{y}/{z}", "/a/b/../admin")
}

// rootRewriteAfterLimiter mounts at "/a" a sub-router of "/admin" (1 an
// hour) and of loose (1000 an hour, the route loosePattern), behind a
// root whose Use holds the limiter (LimitMux, then Limit) and rewrite
// after it, and requires path, which rewrite routes to "/admin", to be
// served once in 3.
func rootRewriteAfterLimiter(t *testing.T, rewrite func(http.Handler) http.Handler, loose, loosePattern, path string) {
	t.Helper()
	for _, where := range []string{"mux", "root"} {
		m := selectOn(t, quota{"GET /a/admin", 1}, quota{loosePattern, 1000})
		hits := 0
		sub := chi.NewRouter()
		sub.Get("/admin", func(http.ResponseWriter, *http.Request) { hits++ })
		sub.Get(loose, func(http.ResponseWriter, *http.Request) {})
		r := chi.NewRouter()
		if where == "mux" {
			r.Use(chilimit.LimitMux(m, r), rewrite)
		} else {
			r.Use(chilimit.Limit(m), rewrite)
		}
		r.Mount("/a", sub)
		assert.Equal(t, []int{200, 429, 429}, thrice(r, http.MethodGet, path), where)
		assert.Equal(t, 1, hits, where)
	}
}
