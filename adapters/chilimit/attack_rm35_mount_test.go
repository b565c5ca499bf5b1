package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
)

// Limit inline on a mount point (r.With(lim).Route("/a", …)), a request
// for the mount point itself ("/a", "/a/"): chi's mount handler routes it
// in the sub-router by "/", its route "/a/". The outer use looked the
// sub-router up by the parent's path ("/a": the whole path at the root,
// the rest of "/p/a" in a sub-router) and charged the request as "/a/a",
// the sub-router's route of that path: "/a/" (2 an hour) never charged,
// 3 of 3 ran, and "/a/a"'s budget spent by requests it never served.
func TestAttackInlineOnAMountPointItselfChargedByItsRoute(t *testing.T) {
	t.Parallel()
	h := func(http.ResponseWriter, *http.Request) {}
	for _, prefix := range []string{"", "/p"} {
		for _, path := range []string{"/a", "/a/"} {
			build := func(m *middleware.Middleware) chi.Router {
				r := chi.NewRouter()
				mount := func(p chi.Router) {
					p.With(chilimit.Limit(m)).Route("/a", func(s chi.Router) { s.Get("/", h); s.Get("/a", h) })
				}
				if prefix == "" {
					mount(r)
				} else {
					r.Route(prefix, mount)
				}
				return r
			}
			m := selectOn(t, quota{prefix + "/a/", 2}, quota{prefix + "/a/a", 100})
			assert.Equal(t, []int{200, 200, 429}, thrice(build(m), http.MethodGet, prefix+path), "%s%s: its route", prefix, path)
			m = selectOn(t, quota{prefix + "/a/a", 2})
			assert.Equal(t, []int{200, 200, 200}, thrice(build(m), http.MethodGet, prefix+path), "%s%s: another route", prefix, path)
		}
	}
}
