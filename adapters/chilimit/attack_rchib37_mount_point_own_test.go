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

// r.Mount("/b", sub) then r.Get("/b", own): chi serves "GET /b" with
// the parent's own handler, but "GET /b/" still with the sub-router's
// "/" (1 an hour, "GET /b/"), naming both "/b". The mount point was taken
// for the parent's at both spellings, the request left unmarked and
// charged on "GET /b" (1000 an hour) alone: 3 of 3 reached the
// sub-router's handler. "GET /b" stays on its own route.
func TestAttackRchib37MountPointOwnedAtOneSpelling(t *testing.T) {
	t.Parallel()
	for _, where := range []string{"mux", "root"} {
		m := selectOn(t, quota{"GET /b", 1000}, quota{"GET /b/", 1})
		var sub, own int
		s := chi.NewRouter()
		s.Get("/", func(http.ResponseWriter, *http.Request) { sub++ })
		r := chi.NewRouter()
		if where == "mux" {
			r.Use(chilimit.LimitMux(m, r))
		} else {
			r.Use(chilimit.Limit(m))
		}
		r.Mount("/b", s)
		r.Get("/b", func(http.ResponseWriter, *http.Request) { own++ })
		assert.Equal(t, []int{200, 200, 200}, thrice(r, http.MethodGet, "/b"), where)
		assert.Equal(t, []int{200, 429, 429}, thrice(r, http.MethodGet, "/b/"), where)
		assert.Equal(t, []int{3, 1}, []int{own, sub}, where)
	}
}
