package chilimit_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type userKey struct{}

// auth is an authentication middleware as chi applications write them: it
// stores the user it verified in the request's context, or answers 401.
func auth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || user == "" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), userKey{}, user)))
	})
}

func as(h http.Handler, user string) int {
	r := httptest.NewRequest(http.MethodGet, "/me", nil)
	if user != "" {
		r.Header.Set("Authorization", "Bearer "+user)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code
}

// The limiter, mounted after the authentication middleware, keys on the
// user it stored in the context: every user of one address has a bucket of
// their own. Mounted before it (LimitMux on the root router, which runs
// first), it finds no user and refuses, never lets a request through
// unlimited.
func TestKeyFromContext(t *testing.T) {
	m, err := middleware.New(middleware.Rate("per-user", "2/hour"), middleware.Options{Key: keyfunc.UserFromContext(userKey{})})
	require.NoError(t, err)
	r := chi.NewRouter()
	r.Use(auth, chilimit.Limit(m))
	r.Get("/me", ok)
	assert.Equal(t, []int{200, 200, 429}, []int{as(r, "alice"), as(r, "alice"), as(r, "alice")})
	assert.Equal(t, []int{200, 200, 429}, []int{as(r, "bob"), as(r, "bob"), as(r, "bob")})
	assert.Equal(t, http.StatusUnauthorized, as(r, ""))

	before := chi.NewRouter()
	before.Use(chilimit.LimitMux(m, before), auth)
	before.Get("/me", ok)
	assert.Equal(t, http.StatusForbidden, as(before, "carol"))
}
