package ginlimit_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/ginlimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func init() { gin.SetMode(gin.TestMode) }

// recorder is a Selector that records the route templates it is given.
type recorder struct {
	lim    middleware.Limiter
	routes []string
}

func (s *recorder) Select(_ *http.Request, route string) (middleware.Limiter, string, error) {
	s.routes = append(s.routes, route)
	return s.lim, "", nil
}

func limiter(t testing.TB, a core.Algorithm) *core.Limiter {
	t.Helper()
	p, err := core.Single("api", a)
	require.NoError(t, err)
	l, err := core.NewLimiter(p)
	require.NoError(t, err)
	return l
}

func do(h http.Handler, method, path, remote string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, nil)
	if remote != "" {
		r.RemoteAddr = remote
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func ok(c *gin.Context) { c.String(http.StatusOK, "ok") }

func TestLimitSeesFullPath(t *testing.T) {
	sel := &recorder{lim: limiter(t, core.GCRA{Rate: core.PerMinute(100)})}
	m, err := middleware.NewSelect(sel, middleware.Options{})
	require.NoError(t, err)
	e := gin.New()
	e.Use(ginlimit.Limit(m, e))
	e.GET("/users/:id", ok)
	g := e.Group("/api")
	g.GET("/items/*rest", ok)
	for _, p := range []string{"/users/1", "/users/2", "/api/items/a/b"} {
		assert.Equal(t, http.StatusOK, do(e, http.MethodGet, p, "").Code, p)
	}
	assert.Equal(t, http.StatusNotFound, do(e, http.MethodGet, "/nowhere", "").Code)
	assert.Equal(t, []string{"/users/:id", "/users/:id", "/api/items/*rest", ""}, sel.routes)
}

func TestDeniedRequestsAreAborted(t *testing.T) {
	m, err := middleware.New(limiter(t, core.GCRA{Rate: core.PerHour(1)}), middleware.Options{})
	require.NoError(t, err)
	calls, after := 0, 0
	e := gin.New()
	e.Use(ginlimit.Limit(m, e), func(c *gin.Context) { after++ })
	e.GET("/", func(c *gin.Context) { calls++ })
	assert.Equal(t, http.StatusOK, do(e, http.MethodGet, "/", "").Code)
	w := do(e, http.MethodGet, "/", "")
	assert.Equal(t, http.StatusTooManyRequests, w.Code)
	assert.Equal(t, "application/problem+json", w.Header().Get("Content-Type"))
	assert.Contains(t, w.Body.String(), middleware.ProblemType)
	assert.Equal(t, 1, calls)
	assert.Equal(t, 1, after)
}

func TestCountIfSeesTheWriterStatus(t *testing.T) {
	m, err := middleware.New(limiter(t, core.GCRA{Rate: core.PerHour(1)}), middleware.Options{CountIf: func(s int) bool { return s >= 400 }})
	require.NoError(t, err)
	fail := false
	e := gin.New()
	e.Use(ginlimit.Limit(m, e))
	e.POST("/login", func(c *gin.Context) {
		if fail {
			c.AbortWithStatus(http.StatusUnauthorized)
			return
		}
		c.Status(http.StatusNoContent)
	})
	for range 3 {
		assert.Equal(t, http.StatusNoContent, do(e, http.MethodPost, "/login", "").Code)
	}
	fail = true
	assert.Equal(t, http.StatusUnauthorized, do(e, http.MethodPost, "/login", "").Code)
	assert.Equal(t, http.StatusTooManyRequests, do(e, http.MethodPost, "/login", "").Code)
}

func TestDefaultKeyIgnoresForwardingHeaders(t *testing.T) {
	m, err := middleware.New(limiter(t, core.GCRA{Rate: core.PerHour(1)}), middleware.Options{})
	require.NoError(t, err)
	e := gin.New() // trusts every proxy by default: ClientIP would believe X-Forwarded-For
	e.Use(ginlimit.Limit(m, e))
	e.GET("/", ok)
	for i, want := range []int{200, 429} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Header.Set("X-Forwarded-For", []string{"198.51.100.1", "198.51.100.2"}[i])
		w := httptest.NewRecorder()
		e.ServeHTTP(w, r)
		assert.Equal(t, want, w.Code)
	}
}

func TestClientIPOptIn(t *testing.T) {
	e := gin.New()
	require.NoError(t, e.SetTrustedProxies([]string{"10.0.0.0/8"}))
	key := ginlimit.ClientIP(e)
	for _, c := range []struct{ remote, xff, want string }{
		{"10.0.0.1:1", "198.51.100.7", "198.51.100.7/32"},
		{"192.0.2.1:1", "198.51.100.7", "192.0.2.1/32"}, // untrusted peer
		{"10.0.0.1:1", "2001:db8:1:2::9", "2001:db8:1:2::/64"},
		{"[::ffff:192.0.2.9]:1", "", "192.0.2.9/32"},
	} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = c.remote
		if c.xff != "" {
			r.Header.Set("X-Forwarded-For", c.xff)
		}
		k, err := key(r)
		require.NoError(t, err, c.remote)
		assert.Equal(t, c.want, k, c.remote)
	}
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.RemoteAddr = "garbage"
	_, err := key(r)
	assert.ErrorIs(t, err, keyfunc.ErrNoKey)
}
