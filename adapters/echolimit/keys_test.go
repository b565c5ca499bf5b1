package echolimit_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/floodgate-go/floodgate/internal/stacktest"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// auth is an authentication middleware as echo applications write them
// (echo-jwt's convention): it stores the user it verified with c.Set, or
// answers 401.
func auth(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		user, ok := stacktest.Bearer(c.Request())
		if !ok {
			return echo.ErrUnauthorized
		}
		c.Set("user", user)
		return next(c)
	}
}

// The limiter keys on the user the authentication middleware stored with
// c.Set; mounted before it, it finds none and refuses.
func TestKeyFromContextSet(t *testing.T) {
	stacktest.CheckUserKey(t, keyfunc.UserFromContext("user"), func(m *middleware.Middleware, before bool) http.Handler {
		e := echo.New()
		if before {
			e.Use(echolimit.Limit(m), auth)
		} else {
			e.Use(auth, echolimit.Limit(m))
		}
		e.GET("/me", ok)
		return e
	})
}

// Values of the request's own context stay visible under keys c.Set did
// not use, and cancellation is the request's.
func TestKeyContextValues(t *testing.T) {
	type reqKey struct{}
	var seen []any
	var done <-chan struct{}
	key := func(r *http.Request) (string, error) {
		ctx := r.Context()
		seen = []any{ctx.Value("user"), ctx.Value(reqKey{}), ctx.Value("none")}
		done = ctx.Done()
		return "k", nil
	}
	m, err := middleware.New(middleware.Rate("api", "10/hour"), middleware.Options{Key: key})
	require.NoError(t, err)
	e := echo.New()
	e.Use(func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error { c.Set("user", "alice"); return next(c) }
	}, echolimit.Limit(m))
	e.GET("/me", ok)
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), reqKey{}, "from the request"))
	defer cancel()
	r := httptest.NewRequestWithContext(ctx, http.MethodGet, "/me", nil)
	w := httptest.NewRecorder()
	e.ServeHTTP(w, r)
	require.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, []any{"alice", "from the request", nil}, seen)
	assert.Equal(t, ctx.Done(), done)
}

// A key function that parses the form of the request's copy leaves the
// form to the handler: the body is not lost to it.
func TestKeyFunctionFormReachesTheHandler(t *testing.T) {
	key := func(r *http.Request) (string, error) { return r.PostFormValue("user"), nil }
	m, err := middleware.New(middleware.Rate("api", "10/hour"), middleware.Options{Key: key})
	require.NoError(t, err)
	e := echo.New()
	e.Use(echolimit.Limit(m))
	var got string
	e.POST("/login", func(c echo.Context) error { got = c.FormValue("user"); return nil })
	r := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader("user=alice"))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	w := httptest.NewRecorder()
	e.ServeHTTP(w, r)
	require.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, "alice", got)
}
