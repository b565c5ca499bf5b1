package stacktest

import (
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
