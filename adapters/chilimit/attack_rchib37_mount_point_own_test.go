package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
)

// chi serves "/b" and "/b/" with a sub-router's "/" route, naming both
// "/b". With "GET /b" (1000 an hour) and "GET /b/" (1 an hour) both
// written, "GET /b" was charged on both, but "GET /b/" on "GET /b" alone:
// the template names that route, and the variant of "/b/" ("/b") names
// it too, while the route its own path names was never tried. 3 of 3
// ran by "/b/", 1 of 3 by "/b", one handler.
func TestAttackRchib37MountPointSlashRouteOfItsOwnPath(t *testing.T) {
	t.Parallel()
	for _, where := range []string{"mux", "root", "sub", "inline"} {
		for _, route := range []string{"Mount", "Route"} {
			m := selectOn(t, quota{"GET /b", 1000}, quota{"GET /b/", 1})
			lim := chilimit.Limit(m)
			hits := 0
			h := func(http.ResponseWriter, *http.Request) { hits++ }
			build := func(sub chi.Router) {
				switch where {
				case "sub":
					sub.Use(lim)
					sub.Get("/", h)
				case "inline":
					sub.With(lim).Get("/", h)
				default:
					sub.Get("/", h)
				}
			}
			r := chi.NewRouter()
			switch where {
			case "mux":
				r.Use(chilimit.LimitMux(m, r))
			case "root":
				r.Use(lim)
			}
			if route == "Route" {
				r.Route("/b", build)
			} else {
				sub := chi.NewRouter()
				build(sub)
				r.Mount("/b", sub)
			}
			assert.Equal(t, []int{200, 429, 429}, thrice(r, http.MethodGet, "/b/"), "%s %s", where, route)
			assert.Equal(t, 1, hits, "%s %s", where, route)
		}
	}
}
