package stacktest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Bearer returns the user an "Authorization: Bearer NAME" field names, as
// the authentication middleware of [CheckUserKey]'s applications verifies
// it, and whether there is one.
func Bearer(r *http.Request) (string, bool) {
	user, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return user, ok && user != ""
}

// CheckUserKey is the end-to-end case of a limiter keyed on the user an
// authentication middleware found. mount returns the router's application
// serving GET /me: the router's authentication middleware (the user of
// [Bearer], stored the router's way, or 401) then m, or m first when
// before is set; key reads the user where the authentication stores it.
// After the authentication, each user has a bucket of their own (2 an
// hour); before it, the limiter finds no user and refuses (403): a request
// is never let through unlimited.
func CheckUserKey(t *testing.T, key keyfunc.Func, mount func(m *middleware.Middleware, before bool) http.Handler) {
	t.Helper()
	build := func() *middleware.Middleware {
		m, err := middleware.New(middleware.Rate("per-user", "2/hour"), middleware.Options{Key: key})
		require.NoError(t, err)
		return m
	}
	as := func(h http.Handler, user string) int {
		r := httptest.NewRequest(http.MethodGet, "/me", nil)
		if user != "" {
			r.Header.Set("Authorization", "Bearer "+user)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	h := mount(build(), false)
	assert.Equal(t, []int{200, 200, 429}, []int{as(h, "alice"), as(h, "alice"), as(h, "alice")})
	assert.Equal(t, []int{200, 200, 429}, []int{as(h, "bob"), as(h, "bob"), as(h, "bob")})
	assert.Equal(t, http.StatusUnauthorized, as(h, ""))
	assert.Equal(t, http.StatusForbidden, as(mount(build(), true), "alice"))
}

// CheckKeyRequest checks the request that key functions are given by an
// adapter passing them its router's per-request values. mount returns the
// router's application: a middleware storing "alice" under the key "user"
// the router's way (c.Set), then m, then h (as the router hands requests
// to a net/http handler) for GET /me and POST /login. The key function
// sees "alice" as r.Context().Value("user"), the values of the request's
// own context under other keys, nil for a key that cannot be a map key
// (no panic), and the request's cancellation; a form it parses is the
// handler's too, although the body was read.
func CheckKeyRequest(t *testing.T, mount func(m *middleware.Middleware, h http.HandlerFunc) http.Handler) {
	t.Helper()
	type reqKey struct{}
	var seen []any
	var done <-chan struct{}
	key := func(r *http.Request) (string, error) {
		ctx := r.Context()
		seen = []any{ctx.Value("user"), ctx.Value(reqKey{}), ctx.Value([]int{1}), ctx.Value("none")}
		done = ctx.Done()
		return "k" + r.PostFormValue("name"), nil
	}
	m, err := middleware.New(middleware.Rate("api", "10/hour"), middleware.Options{Key: key})
	require.NoError(t, err)
	var form string
	h := mount(m, func(_ http.ResponseWriter, r *http.Request) { form = r.PostFormValue("name") })

	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), reqKey{}, "from the request"))
	defer cancel()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequestWithContext(ctx, http.MethodGet, "/me", nil))
	require.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, []any{"alice", "from the request", nil, nil}, seen)
	assert.Equal(t, ctx.Done(), done)

	r := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader("name=bob"))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	w = httptest.NewRecorder()
	h.ServeHTTP(w, r)
	require.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, "bob", form)
}
