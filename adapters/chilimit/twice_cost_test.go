package chilimit_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/httpbench"
	"github.com/floodgate-go/floodgate/internal/race"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// allocsOf returns the allocations of one GET path through h.
func allocsOf(t *testing.T, h http.Handler, path string) float64 {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, path, nil)
	r.Header.Set("Accept", "*/*")
	w := httpbench.NewSink()
	w.Reset()
	h.ServeHTTP(w, r)
	require.Equal(t, http.StatusOK, w.Code)
	return testing.AllocsPerRun(50, func() {
		w.Reset()
		h.ServeHTTP(w, r)
	})
}

// One Limit inline on two sibling routes (r.With(lim).Get("/a"),
// r.With(lim).Get("/b"), the common way to limit two routes) counted as
// mounted twice: every request paid for the guard against a request
// decided twice (a context value, a copy of the request, a sum of its
// headers; 3 allocations more than one route, 7 against 4) though no
// request meets lim twice; so did the Uses of two sub-routers, and a
// Group's Use over two routes. Only a Middleware that one request can
// meet twice (uses nested in the router's tree, or a use the tree does
// not show) pays it now: 4 and 4. Not parallel: the count is the
// process's.
func TestSiblingRoutesOfOneLimitPayNoTwiceGuard(t *testing.T) {
	m, err := middleware.New(limiter(t, core.GCRA{Rate: core.PerSecond(1_000_000_000)}), middleware.Options{})
	require.NoError(t, err)
	one := chi.NewRouter()
	one.With(chilimit.Limit(m)).Get("/a", ok)
	m2, err := middleware.New(limiter(t, core.GCRA{Rate: core.PerSecond(1_000_000_000)}), middleware.Options{})
	require.NoError(t, err)
	lim := chilimit.Limit(m2)
	two := chi.NewRouter()
	two.With(lim).Get("/a", ok)
	two.With(lim).Get("/b", ok)
	group := chi.NewRouter() // a Group's Use is inline too
	m3, err := middleware.New(limiter(t, core.GCRA{Rate: core.PerSecond(1_000_000_000)}), middleware.Options{})
	require.NoError(t, err)
	group.Group(func(g chi.Router) {
		g.Use(chilimit.Limit(m3))
		g.Get("/a", ok)
		g.Get("/b", ok)
	})
	subs := func(paths ...string) http.Handler { // the Use of each of sub-routers
		m, err := middleware.New(limiter(t, core.GCRA{Rate: core.PerSecond(1_000_000_000)}), middleware.Options{})
		require.NoError(t, err)
		lim := chilimit.Limit(m)
		r := chi.NewRouter()
		for _, p := range paths {
			r.Route(p, func(s chi.Router) {
				s.Use(lim)
				s.Get("/", ok)
			})
		}
		return r
	}
	base := allocsOf(t, one, "/a")
	assert.Less(t, allocsOf(t, two, "/a"), base+1, "two sibling routes")
	assert.Less(t, allocsOf(t, group, "/b"), base+1, "a group of two routes")
	if !race.Enabled { // the routing contexts of a sub-router's Use are pooled
		assert.Less(t, allocsOf(t, subs("/a", "/b"), "/b/"), allocsOf(t, subs("/b"), "/b/")+1, "two sub-routers")
	}
}
