package chilimit

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/floodgate-go/floodgate/internal/routemethods"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A pattern Find names that is no mount point is not read again: each
// would walk the whole router under the lock (once per route of a large
// application) and stay in the table.
func TestMountsReadOnceForFindsPatterns(t *testing.T) {
	t.Parallel()
	r := fortyRoutesAndAMount()
	var ms mounts
	st := stubs{ms: &ms, root: r, t: routemethods.New(func() []routemethods.Route { return walk(r) })}
	rctx := chi.NewRouteContext()
	for i := range 40 {
		rctx.Reset()
		p := r.Find(rctx, http.MethodGet, "/r"+strconv.Itoa(i))
		assert.Equal(t, p, st.through(rctx, http.MethodGet, p))
	}
	rctx.Reset()
	assert.Equal(t, "/api/*", routePattern(st.through(rctx, http.MethodPost, r.Find(rctx, http.MethodPost, "/api"))))
	all := ms.all.Load()
	require.NotNil(t, all)
	// "/api/*", "/api", and the pattern asked at the first read.
	assert.LessOrEqual(t, len((*all)[chi.Routes(r)].byKey), 3)
}

// Limit inline asks about the pattern of each route chi found, which the
// root's table lists: such a pattern unknown to the mount points read is
// none, without reading them again (a full walk under the lock, once for
// each route of the application at its first request).
func TestMountsReadOnceForListedRoutes(t *testing.T) {
	t.Parallel()
	r := fortyRoutesAndAMount()
	var ms mounts
	tab := routemethods.New(func() []routemethods.Route { return walk(r) })
	for i := range 40 {
		rctx := chi.NewRouteContext()
		rctx.Routes = r
		rctx.RoutePatterns = []string{"/r" + strconv.Itoa(i)}
		assert.Nil(t, ms.pending(rctx, "/r"+strconv.Itoa(i), false, tab))
	}
	rctx := chi.NewRouteContext()
	rctx.Routes, rctx.RouteMethod, rctx.RoutePatterns = r, http.MethodPost, []string{"/api/*"}
	assert.NotNil(t, ms.pending(rctx, "/api/*", false, tab))
	all := ms.all.Load()
	require.NotNil(t, all)
	assert.LessOrEqual(t, len((*all)[chi.Routes(r)].byKey), 3)
}

// fortyRoutesAndAMount returns a router of the routes "GET /r0" to
// "GET /r39" and a sub-router mounted at "/api" serving "POST /api/*".
func fortyRoutesAndAMount() *chi.Mux {
	r := chi.NewRouter()
	h := func(http.ResponseWriter, *http.Request) {}
	for i := range 40 {
		r.Get("/r"+strconv.Itoa(i), h)
	}
	r.Route("/api", func(s chi.Router) { s.Post("/*", h) })
	return r
}
