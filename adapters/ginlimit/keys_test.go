package ginlimit_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/ginlimit"
	"github.com/floodgate-go/floodgate/internal/stacktest"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// auth is an authentication middleware as gin applications write them: it
// stores the user it verified with c.Set, or aborts with 401.
func auth(c *gin.Context) {
	user, ok := stacktest.Bearer(c.Request)
	if !ok {
		c.AbortWithStatus(http.StatusUnauthorized)
		return
	}
	c.Set("user", user)
}

// The limiter keys on the user the authentication middleware stored with
// c.Set; mounted before it, it finds none and refuses.
func TestKeyFromContextSet(t *testing.T) {
	stacktest.CheckUserKey(t, keyfunc.UserFromContext("user"), func(m *middleware.Middleware, before bool) http.Handler {
		e := gin.New()
		if before {
			e.Use(ginlimit.Limit(m), auth)
		} else {
			e.Use(auth, ginlimit.Limit(m))
		}
		e.GET("/me", ok)
		return e
	})
}

// Values of the request's own context stay visible under keys c.Set did
// not use, cancellation is the request's, and a key that cannot be a map
// key is absent rather than a panic.
func TestKeyContextValues(t *testing.T) {
	type reqKey struct{}
	var seen []any
	var done <-chan struct{}
	key := func(r *http.Request) (string, error) {
		ctx := r.Context()
		seen = []any{ctx.Value("user"), ctx.Value(reqKey{}), ctx.Value([]int{1}), ctx.Value("none")}
		done = ctx.Done()
		return "k", nil
	}
	m, err := middleware.New(middleware.Rate("api", "10/hour"), middleware.Options{Key: key})
	require.NoError(t, err)
	e := gin.New()
	e.Use(func(c *gin.Context) { c.Set("user", "alice") }, ginlimit.Limit(m))
	e.GET("/me", ok)
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), reqKey{}, "from the request"))
	defer cancel()
	r := httptest.NewRequestWithContext(ctx, http.MethodGet, "/me", nil)
	w := httptest.NewRecorder()
	e.ServeHTTP(w, r)
	require.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, []any{"alice", "from the request", nil, nil}, seen)
	assert.Equal(t, ctx.Done(), done)
}

// A key function that parses the form of the request's copy leaves the
// form to the handler: the body is not lost to it.
func TestKeyFunctionFormReachesTheHandler(t *testing.T) {
	key := func(r *http.Request) (string, error) { return r.PostFormValue("user"), nil }
	m, err := middleware.New(middleware.Rate("api", "10/hour"), middleware.Options{Key: key})
	require.NoError(t, err)
	e := gin.New()
	e.Use(func(c *gin.Context) { c.Set("tenant", "t1") }, ginlimit.Limit(m))
	var got string
	e.POST("/login", func(c *gin.Context) { got = c.PostForm("user") })
	r := httptest.NewRequest(http.MethodPost, "/login", strings.NewReader("user=alice"))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	w := httptest.NewRecorder()
	e.ServeHTTP(w, r)
	require.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, "alice", got)
}
