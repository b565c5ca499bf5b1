package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
)

// Mount("/b", sub) with sub.Get("/") serves "GET /b" and "GET /b/" with
// one handler, which chi names "/b" both ways. Routes given "/b" matched
// the path "/b/" to "/b/" (1 an hour) but the path "/b" as ServeMux does,
// to "/{id}" (1000 an hour), which chi does not serve it with: 3 of 3 ran
// by "/b", 1 of 3 by "/b/", one handler, whatever the use (LimitMux,
// Limit in the root's Use, in the sub-router's, inline). An escape by
// Routes' documentation ("limited by the route of the handler it
// reaches, whatever variant of method and path"), older than the commits
// reviewed by rchi37. The request to a mount point is now marked as
// reaching a handler its path's variants reach too: Routes charges it on
// the variant's route as well, all or nothing (GET /b on "/{id}" and
// "/b/", GET /b/ on "/b/" and "/{id}").
func TestAttackRchi37MountPointWithoutSlashLimitedAsItsSubtree(t *testing.T) {
	t.Parallel()
	for _, where := range []string{"mux", "root", "sub", "inline"} {
		for _, path := range []string{"/b", "/b/"} {
			m := selectOn(t, quota{"/b/", 1}, quota{"/{id}", 1000})
			lim := chilimit.Limit(m)
			hits := 0
			h := func(http.ResponseWriter, *http.Request) { hits++ }
			sub, r := chi.NewRouter(), chi.NewRouter()
			switch where {
			case "mux":
				r.Use(chilimit.LimitMux(m, r))
			case "root":
				r.Use(lim)
			case "sub":
				sub.Use(lim)
			}
			if where == "inline" {
				sub.With(lim).Get("/", h)
			} else {
				sub.Get("/", h)
			}
			r.Mount("/b", sub)
			r.Get("/{id}", func(http.ResponseWriter, *http.Request) {})
			assert.Equal(t, []int{200, 429, 429}, thrice(r, http.MethodGet, path), "%s %s", where, path)
			assert.Equal(t, 1, hits, "%s %s", where, path)
		}
	}
}
