package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
)

// One Limit inline on a mount point (r.With(lim).Route("/a", …), or a
// Group's Use over r.Route) and another inside the sub-router. The outer
// use runs before chi's mount handler has set the sub-router's routing
// path, and looked the request's whole path up in the sub-router: no
// route, so it was decided by the mount point's "/a/*" (which Routes
// charges on "/a/x", the route under it), and the inner use, deciding by
// "/a/x", took it for another decision: "/a/x" (2 an hour) charged twice,
// 1 of 3 ran. The outer use now routes the sub-router by the rest the
// mount point matched: 2 of 3.
func TestAttackInlineOnAMountPointChargedOnce(t *testing.T) {
	t.Parallel()
	h := func(http.ResponseWriter, *http.Request) {}
	shapes := map[string]func(m *middleware.Middleware) chi.Router{
		"With.Route": func(m *middleware.Middleware) chi.Router {
			r := chi.NewRouter()
			r.With(chilimit.Limit(m)).Route("/a", func(s chi.Router) { s.With(chilimit.Limit(m)).Get("/x", h) })
			return r
		},
		"Group.Use+Route.Use": func(m *middleware.Middleware) chi.Router {
			r := chi.NewRouter()
			r.Group(func(g chi.Router) {
				g.Use(chilimit.Limit(m))
				g.Route("/a", func(s chi.Router) { s.Use(chilimit.Limit(m)); s.Get("/x", h) })
			})
			return r
		},
	}
	for name, shape := range shapes {
		m := selectOn(t, quota{"/a/x", 2})
		assert.Equal(t, []int{200, 200, 429}, thrice(shape(m), http.MethodGet, "/a/x"), name)
	}
}
