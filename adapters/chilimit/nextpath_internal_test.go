package chilimit

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The chi in use keeps the routing parameters nextRoutePath reads, and
// it gives the path chi's mount handler gives the sub-router, inline on
// the mount point and in the sub-router's Use alike.
func TestNextRoutePathAsChiMounts(t *testing.T) {
	t.Parallel()
	require.GreaterOrEqual(t, routeParamsField, 0, "chi keeps no routeParams: subPath falls back")
	var got []string
	seen := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p, ok := nextRoutePath(chi.RouteContext(r.Context()))
			require.True(t, ok)
			got = append(got, p)
			next.ServeHTTP(w, r)
		})
	}
	h := func(http.ResponseWriter, *http.Request) {}
	p := chi.NewRouter()
	p.With(seen).Route("/a/", func(s chi.Router) {
		s.Use(seen)
		s.Get("/", h)
		s.Get("/a/", h)
	})
	r := chi.NewRouter()
	r.Mount("/p", p)
	for _, path := range []string{"/p/a/", "/p/a/a/"} {
		got = nil
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		assert.Equal(t, http.StatusOK, w.Code, path)
		want := "/" + path[len("/p/a/"):]
		assert.Equal(t, []string{want, want}, got, path)
	}
}
