package echolimit_test

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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

func do(h http.Handler, method, path string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(method, path, nil))
	return w
}

func ok(c echo.Context) error { return c.String(http.StatusOK, "ok") }

func TestLimitSeesPath(t *testing.T) {
	sel := &recorder{lim: limiter(t, core.GCRA{Rate: core.PerMinute(100)})}
	m, err := middleware.NewSelect(sel, middleware.Options{})
	require.NoError(t, err)
	e := echo.New()
	e.Use(echolimit.Limit(m))
	e.GET("/users/:id", ok)
	g := e.Group("/api")
	g.GET("/items/*", ok)
	for _, p := range []string{"/users/1", "/users/2", "/api/items/a/b"} {
		assert.Equal(t, http.StatusOK, do(e, http.MethodGet, p).Code, p)
	}
	assert.Equal(t, []string{"/users/:id", "/users/:id", "/api/items/*"}, sel.routes)
}

// A denial is answered once: Begin writes it, and echo's error handler
// writes nothing more.
func TestDeniedRequestsAreAnsweredOnce(t *testing.T) {
	m, err := middleware.New(limiter(t, core.GCRA{Rate: core.PerHour(1)}), middleware.Options{})
	require.NoError(t, err)
	calls := 0
	e := echo.New()
	e.Use(echolimit.Limit(m))
	e.GET("/", func(c echo.Context) error { calls++; return nil })
	assert.Equal(t, http.StatusOK, do(e, http.MethodGet, "/").Code)
	w := do(e, http.MethodGet, "/")
	assert.Equal(t, http.StatusTooManyRequests, w.Code)
	assert.Equal(t, "application/problem+json", w.Header().Get("Content-Type"))
	assert.Equal(t, 1, strings.Count(w.Body.String(), "{"), w.Body.String())
	assert.Equal(t, w.Header().Get("Content-Length"), strconv.Itoa(w.Body.Len()))
	assert.Equal(t, 1, calls)
}

func mustCIDR(t *testing.T, s string) *net.IPNet {
	t.Helper()
	_, n, err := net.ParseCIDR(s)
	require.NoError(t, err)
	return n
}

// With CountIf, an error the handler returns is written by echo's error
// handler before the status is counted, and only once.
func TestCountIfSeesHandlerErrors(t *testing.T) {
	m, err := middleware.New(limiter(t, core.GCRA{Rate: core.PerHour(1)}), middleware.Options{CountIf: func(s int) bool { return s >= 400 }})
	require.NoError(t, err)
	fail := false
	handled := 0
	e := echo.New()
	def := e.HTTPErrorHandler
	e.HTTPErrorHandler = func(err error, c echo.Context) { handled++; def(err, c) }
	e.Use(echolimit.Limit(m))
	e.POST("/login", func(c echo.Context) error {
		if fail {
			return echo.NewHTTPError(http.StatusUnauthorized, "bad password")
		}
		return c.NoContent(http.StatusNoContent)
	})
	for range 3 {
		assert.Equal(t, http.StatusNoContent, do(e, http.MethodPost, "/login").Code)
	}
	fail = true
	w := do(e, http.MethodPost, "/login")
	assert.Equal(t, http.StatusUnauthorized, w.Code)
	assert.JSONEq(t, `{"message":"bad password"}`, w.Body.String())
	assert.Equal(t, 1, handled)
	assert.Equal(t, http.StatusTooManyRequests, do(e, http.MethodPost, "/login").Code)
	assert.Equal(t, 1, handled)
}

func TestDefaultKeyIgnoresForwardingHeaders(t *testing.T) {
	m, err := middleware.New(limiter(t, core.GCRA{Rate: core.PerHour(1)}), middleware.Options{})
	require.NoError(t, err)
	e := echo.New()
	e.Use(echolimit.Limit(m))
	e.GET("/", ok)
	for i, want := range []int{200, 429} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Header.Set("X-Forwarded-For", []string{"198.51.100.1", "198.51.100.2"}[i])
		w := httptest.NewRecorder()
		e.ServeHTTP(w, r)
		assert.Equal(t, want, w.Code)
	}
}

func TestRealIPOptIn(t *testing.T) {
	e := echo.New()
	key := echolimit.RealIP(e)
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.RemoteAddr = "10.0.0.1:1"
	r.Header.Set("X-Forwarded-For", "198.51.100.7, 10.0.0.2")
	k, err := key(r)
	require.NoError(t, err)
	assert.Equal(t, "10.0.0.1/32", k, "without an extractor, RemoteAddr: not echo's legacy RealIP, which believes the header")

	e.IPExtractor = echo.ExtractIPFromXFFHeader(echo.TrustIPRange(mustCIDR(t, "10.0.0.0/8")))
	k, err = key(r)
	require.NoError(t, err)
	assert.Equal(t, "198.51.100.7/32", k)
	r.RemoteAddr = "[2001:db8:1:2::9]:1"
	k, err = key(r)
	require.NoError(t, err)
	assert.Equal(t, "2001:db8:1:2::/64", k, "an untrusted peer is the client")

	e.IPExtractor = func(*http.Request) string { return "not an address" }
	_, err = key(r)
	assert.ErrorIs(t, err, keyfunc.ErrNoKey)
}
