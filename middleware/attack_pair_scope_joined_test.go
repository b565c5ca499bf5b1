package middleware_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"testing"

	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// joinedRoutes is an application's Selector wrapping Routes that joins
// the route's scope and the tenant injectively, as keyfunc.Join joins
// keys: each length-prefixed.
type joinedRoutes struct{ rt *middleware.Routes }

func (s joinedRoutes) Select(r *http.Request, route string) (middleware.Limiter, string, error) {
	l, scope, err := s.rt.Select(r, route)
	t := r.Header.Get("X-Tenant")
	return l, strconv.Itoa(len(scope)) + ":" + scope + strconv.Itoa(len(t)) + ":" + t, err
}

// hashedRoutes is an application's KeySelector wrapping Routes that keys
// a route's requests by a hash of the route's scope and the user.
type hashedRoutes struct{ rt *middleware.Routes }

func (s hashedRoutes) SelectKey(r *http.Request, route string) (middleware.Limiter, string, error) {
	l, scope, err := s.rt.Select(r, route)
	h := sha256.Sum256([]byte(scope + "\x00" + r.Header.Get("X-User")))
	return l, hex.EncodeToString(h[:]), err
}

// A Selector wrapping Routes may build its scope from the route's in any
// way that keeps scopes apart: joined with a length prefix, hashed. The
// middleware put each route's scope in place of the placeholder Routes
// gave with a Pair, in the text the Selector returned: a length prefix
// then counted the placeholder's length, a hash hid the placeholder, so
// that "POST /api/login/" and "post /api/login" were charged in buckets
// no request of the route is ever counted in: admitted after the
// tenant's "POST /api/login" spent its 1 an hour, 3 requests where the
// route allows 1. Each part of a Pair is now selected by the Selector
// itself, as that route's own requests are: 429.
func TestAttackPairUnderAJoiningSelectorGetsAFreshBucket(t *testing.T) {
	m, err := middleware.NewSelect(joinedRoutes{sharedAPIRoutes(t)}, middleware.Options{})
	require.NoError(t, err)
	spellingsShareTheBucket(t, apiApp(m), "X-Tenant")
}

// The same for a KeySelector hashing the route's scope into its key.
func TestAttackPairUnderAHashingKeySelectorGetsAFreshBucket(t *testing.T) {
	m, err := middleware.NewKeyed(hashedRoutes{sharedAPIRoutes(t)}, middleware.Options{})
	require.NoError(t, err)
	spellingsShareTheBucket(t, apiApp(m), "X-User")
}

// A CORS preflight announcing a variant spelling is charged in the
// preflight buckets of each route, under the scope the joining Selector
// gives that route's own preflights (the request it announces selected
// again for each route).
func TestPairPreflightUnderAJoiningSelectorSharesTheRoutesBuckets(t *testing.T) {
	m, err := middleware.NewSelect(joinedRoutes{sharedAPIRoutes(t)}, middleware.Options{})
	require.NoError(t, err)
	h := apiApp(m)
	pre := map[string]string{"X-Tenant": "a", "Origin": "https://a.example", "Access-Control-Request-Method": "POST"}
	b := map[string]string{"X-Tenant": "b", "Origin": "https://a.example", "Access-Control-Request-Method": "POST"}
	assert.Equal(t, 200, serve(h, "OPTIONS", "/api/login/", "192.0.2.1:1", b), "a fresh tenant's variant preflight")
	assert.Equal(t, 429, serve(h, "OPTIONS", "/api/login", "192.0.2.1:1", b), "its route's preflight bucket")
	assert.Equal(t, 200, serve(h, "OPTIONS", "/api/login", "192.0.2.1:1", pre))
	assert.Equal(t, 429, serve(h, "OPTIONS", "/api/login/", "192.0.2.1:1", pre), "the tenant's login preflight bucket")
	assert.Equal(t, 200, serve(h, "POST", "/api/login", "192.0.2.1:1", map[string]string{"X-Tenant": "a"}), "not the request's")
}
