package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// slashMount returns a router mounting at "/p" a router p where use is
// inline on p.Route("/a/", …), and inside, when inner is not nil, in the
// sub-router's Use; the sub-router serves "/" and "/a/".
func slashMount(use, inner func(http.Handler) http.Handler) http.Handler {
	h := func(http.ResponseWriter, *http.Request) {}
	p := chi.NewRouter()
	p.With(use).Route("/a/", func(s chi.Router) {
		if inner != nil {
			s.Use(inner)
		}
		s.Get("/", h)
		s.Get("/a/", h)
	})
	r := chi.NewRouter()
	r.Mount("/p", p)
	return r
}

// p.With(lim).Route("/a/", …) in a router mounted at "/p": a request for
// the mount point itself ("/p/a/"), which chi routes in the sub-router by
// "/", was looked up there by p's routing path ("/a/") and limited as
// route "/p/a/a"; with the sub-router's Use limited too, by "/p/a" there,
// it was charged twice: 2 of 5 "GET /p/a/" ran at 4 an hour. The
// sub-router's path is now the one chi's mount handler gives it: the
// route is "/p/a" (chi's "/p/a/" without its slash) at both uses, and 4
// of 5 ran.
func TestInlineOnSlashMountPointUnderMountChargesItsRoute(t *testing.T) {
	t.Parallel()
	m := selectOn(t, quota{"/p/a/", 4}, quota{"/p/a/a/", 4})
	r := slashMount(chilimit.Limit(m), chilimit.Limit(m))
	var codes []int
	for range 5 {
		codes = append(codes, from(r, http.MethodGet, "/p/a/", "192.0.2.1:1"))
	}
	assert.Equal(t, []int{200, 200, 200, 200, 429}, codes)

	rec := &recorder{lim: fixed(t, 100)}
	mr, err := middleware.NewSelect(rec, middleware.Options{})
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, from(slashMount(chilimit.Limit(mr), nil), http.MethodGet, "/p/a/", "192.0.2.1:1"))
	assert.Equal(t, []string{"/p/a"}, rec.routes)
}
