package middleware_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tenantAfterRoutes is an application's Selector wrapping Routes that
// puts its own scope after the route's.
type tenantAfterRoutes struct{ rt *middleware.Routes }

func (s tenantAfterRoutes) Select(r *http.Request, route string) (middleware.Limiter, string, error) {
	l, scope, err := s.rt.Select(r, route)
	return l, scope + "/tenant:" + r.Header.Get("X-Tenant"), err
}

// userAfterRoutes is an application's KeySelector wrapping Routes that
// keys each route's requests by the route's scope and the user.
type userAfterRoutes struct{ rt *middleware.Routes }

func (s userAfterRoutes) SelectKey(r *http.Request, route string) (middleware.Limiter, string, error) {
	l, scope, err := s.rt.Select(r, route)
	return l, scope + "|user:" + r.Header.Get("X-User"), err
}

// A Selector wrapping Routes may put its scope after the route's, not
// before: the Pair of a variant spelling took the wrapper's scope for a
// prefix of each part's, so that "POST /api/login/" was charged in
// buckets ("/tenant:a" then the route's) no request of the route is ever
// counted in: admitted after the tenant's "POST /api/login" spent its 1
// an hour. The wrapper's scope now stands for each part's route scope
// where the wrapper put it: 429.
func TestAttackPairUnderASuffixingSelectorGetsAFreshBucket(t *testing.T) {
	m, err := middleware.NewSelect(tenantAfterRoutes{sharedAPIRoutes(t)}, middleware.Options{})
	require.NoError(t, err)
	spellingsShareTheBucket(t, apiApp(m), "X-Tenant")
}

// The same for a KeySelector whose key holds the route's scope: the
// Pair charged every route under the key without any route's scope.
func TestAttackPairUnderASuffixingKeySelectorGetsAFreshBucket(t *testing.T) {
	m, err := middleware.NewKeyed(userAfterRoutes{sharedAPIRoutes(t)}, middleware.Options{})
	require.NoError(t, err)
	h := apiApp(m)
	a := map[string]string{"X-User": "a"}
	assert.Equal(t, 200, serve(h, "POST", "/api/login", "192.0.2.1:1", a))
	assert.Equal(t, 429, serve(h, "POST", "/api/login/", "192.0.2.1:1", a), "user a's login bucket")
	assert.Equal(t, 200, serve(h, "POST", "/api/login/", "192.0.2.2:1", map[string]string{"X-User": "b"}), "user b's own")
}

// tenantOnlyRoutes is a Selector wrapping Routes that drops the route's
// scope: every route of a limiter counted in one bucket per tenant.
type tenantOnlyRoutes struct{ rt *middleware.Routes }

func (s tenantOnlyRoutes) Select(r *http.Request, route string) (middleware.Limiter, string, error) {
	l, _, err := s.rt.Select(r, route)
	return l, "tenant:" + r.Header.Get("X-Tenant"), err
}

// A Selector that drops the route's scope had a variant spelling charged
// under each route's scope: buckets none of its requests is counted in.
func TestAttackPairUnderAScopeDroppingSelectorGetsAFreshBucket(t *testing.T) {
	m, err := middleware.NewSelect(tenantOnlyRoutes{sharedAPIRoutes(t)}, middleware.Options{})
	require.NoError(t, err)
	h := apiApp(m)
	a := map[string]string{"X-Tenant": "a"}
	assert.Equal(t, 200, serve(h, "POST", "/api/login", "192.0.2.1:1", a))
	assert.Equal(t, 429, serve(h, "POST", "/api/login/", "192.0.2.1:1", a), "the tenant's one bucket")
}

// apiApp is m in front of an application whose "/api/" handler routes
// further (sharedAPIRoutes' subtree).
func apiApp(m *middleware.Middleware) http.Handler {
	app := http.NewServeMux()
	app.HandleFunc("/api/", func(http.ResponseWriter, *http.Request) {})
	return m.Handler(app)
}

// spellingsShareTheBucket checks that once client "a" (header hdr) has
// spent "POST /api/login"'s 1 an hour, its variant spellings are refused
// in that bucket, and client "b" still has its own.
func spellingsShareTheBucket(t *testing.T, h http.Handler, hdr string) {
	t.Helper()
	a := map[string]string{hdr: "a"}
	assert.Equal(t, 200, serve(h, "POST", "/api/login", "192.0.2.1:1", a))
	assert.Equal(t, 429, serve(h, "POST", "/api/login/", "192.0.2.1:1", a), "a's login bucket")
	assert.Equal(t, 429, serve(h, "post", "/api/login", "192.0.2.1:1", a), "a's login bucket")
	assert.Equal(t, 200, serve(h, "POST", "/api/login/", "192.0.2.1:1", map[string]string{hdr: "b"}), "b's own")
}
