package middleware_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tenantRoutes is an application's Selector wrapping Routes: each
// tenant's requests in buckets of their own, its name before the route's
// scope.
type tenantRoutes struct{ rt *middleware.Routes }

func (s tenantRoutes) Select(r *http.Request, route string) (middleware.Limiter, string, error) {
	l, scope, err := s.rt.Select(r, route)
	return l, "tenant:" + r.Header.Get("X-Tenant") + "/" + scope, err
}

// userRoutes is an application's KeySelector wrapping Routes: each user's
// requests counted by the user, in the limiter of the route.
type userRoutes struct{ rt *middleware.Routes }

func (s userRoutes) SelectKey(r *http.Request, route string) (middleware.Limiter, string, error) {
	l, _, err := s.rt.Select(r, route)
	return l, "user:" + r.Header.Get("X-User"), err
}

// sharedAPIRoutes returns Routes limiting "/api/" (a handler routing
// further) and "POST /api/login" by one limiter of 1 an hour, each route
// in its own buckets.
func sharedAPIRoutes(t *testing.T) *middleware.Routes {
	t.Helper()
	shared := limiter(t, newClock(), core.FixedWindow{Quota: 1, Window: time.Hour})
	rt := middleware.NewRoutes(nil)
	require.NoError(t, rt.Add("/api/", shared))
	require.NoError(t, rt.Add("POST /api/login", shared))
	return rt
}

// A request charged on several routes is given a Limiter that decides
// them all with "" for a scope. A Selector wrapping Routes that puts its
// own scope before the route's (per tenant) had the Pair charge each route
// under its scope *around* the tenant's key: buckets no request of the
// route is ever counted in. "POST /api/login/" after "POST /api/login"
// spent the tenant's login bucket (1/hour) was admitted, a fresh bucket
// for a spelling. The scope a Selector gives a Pair now goes before each
// part's scope, as it goes before the route's: 429.
func TestAttackPairUnderAWrappingSelectorGetsAFreshBucket(t *testing.T) {
	m, err := middleware.NewSelect(tenantRoutes{sharedAPIRoutes(t)}, middleware.Options{})
	require.NoError(t, err)
	h := apiApp(m)
	tenant := map[string]string{"X-Tenant": "a"}
	assert.Equal(t, 200, serve(h, "POST", "/api/login", "192.0.2.1:1", tenant))
	assert.Equal(t, 429, serve(h, "POST", "/api/login/", "192.0.2.1:1", tenant), "the tenant's login bucket")
	assert.Equal(t, 200, serve(h, "POST", "/api/login/", "192.0.2.1:1", map[string]string{"X-Tenant": "b"}), "another tenant's")
}

// A KeySelector wrapping Routes, counting by user, gave the Pair of a
// variant spelling with its key: NewKeyed took the Pair for the config
// package's (its parts' scopes for keys) and dropped the user's key, so
// that every user's "POST /api/login/" shared one bucket of each route,
// none of them the user's own: user a's after its "POST /api/login" was
// admitted (a fresh bucket), and user b's then refused (a's spent it).
// The Pair now charges each route's limiter under the user's key, as the
// KeySelector's own requests are.
func TestAttackPairUnderAWrappingKeySelectorDropsTheKey(t *testing.T) {
	m, err := middleware.NewKeyed(userRoutes{sharedAPIRoutes(t)}, middleware.Options{})
	require.NoError(t, err)
	h := apiApp(m)
	a, b := map[string]string{"X-User": "a"}, map[string]string{"X-User": "b"}
	assert.Equal(t, 200, serve(h, "POST", "/api/login", "192.0.2.1:1", a))
	assert.Equal(t, 429, serve(h, "POST", "/api/login/", "192.0.2.1:1", a), "user a's bucket")
	assert.Equal(t, 200, serve(h, "POST", "/api/login/", "192.0.2.2:1", b), "user b's own bucket")
}
