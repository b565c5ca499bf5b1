package echolimit_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// server returns an echo server whose "/items/:id" serves GET and HEAD,
// limited to n per hour by the route "GET /items/:id".
func server(t *testing.T, n int64, opts middleware.Options) *echo.Echo {
	t.Helper()
	rt := middleware.NewRoutes(nil)
	require.NoError(t, rt.Add("GET /items/:id", fixed(t, n)))
	m, err := middleware.NewSelect(rt, opts)
	require.NoError(t, err)
	e := echo.New()
	e.Use(echolimit.Limit(m))
	e.Match([]string{http.MethodGet, http.MethodHead}, "/items/:id", ok)
	return e
}

func from(h http.Handler, method, path, ip string, hdr ...string) int {
	r := httptest.NewRequest(method, path, nil)
	r.RemoteAddr = ip
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code
}

// A route serving GET and HEAD: N GETs exhaust the limit and HEAD is then
// denied, and the other way round.
func TestHeadIsLimitedLikeGet(t *testing.T) {
	e := server(t, 3, middleware.Options{})
	for i := range 3 {
		require.Equal(t, 200, from(e, "GET", "/items/1", "192.0.2.1:1"), i)
	}
	assert.Equal(t, 429, from(e, "HEAD", "/items/2", "192.0.2.1:1"))
	for i := range 3 {
		require.Equal(t, 200, from(e, "HEAD", "/items/1", "192.0.2.2:1"), i)
	}
	assert.Equal(t, 429, from(e, "GET", "/items/2", "192.0.2.2:1"))
}

// echo answers a preflight for a GET route itself (204 with Allow): it is
// limited like the route it announces, in a bucket of its own by default,
// in the route's with PreflightLikeRoute, and not by the route with
// PreflightAsOptions.
func TestPreflight(t *testing.T) {
	pre := []string{"Origin", "https://example.com", "Access-Control-Request-Method", "GET"}
	e := server(t, 2, middleware.Options{})
	assert.Equal(t, 204, from(e, "OPTIONS", "/items/1", "192.0.2.1:1", pre...))
	assert.Equal(t, 204, from(e, "OPTIONS", "/items/1", "192.0.2.1:1", pre...))
	assert.Equal(t, 429, from(e, "OPTIONS", "/items/1", "192.0.2.1:1", pre...))
	assert.Equal(t, 200, from(e, "GET", "/items/1", "192.0.2.1:1"))
	assert.Equal(t, 200, from(e, "GET", "/items/1", "192.0.2.1:1"))
	assert.Equal(t, 429, from(e, "GET", "/items/1", "192.0.2.1:1"))

	e = server(t, 2, middleware.Options{Preflight: middleware.PreflightLikeRoute})
	assert.Equal(t, 204, from(e, "OPTIONS", "/items/1", "192.0.2.1:1", pre...))
	assert.Equal(t, 200, from(e, "GET", "/items/1", "192.0.2.1:1"))
	assert.Equal(t, 429, from(e, "GET", "/items/1", "192.0.2.1:1"))

	e = server(t, 1, middleware.Options{Preflight: middleware.PreflightAsOptions})
	for range 3 {
		assert.Equal(t, 204, from(e, "OPTIONS", "/items/1", "192.0.2.1:1", pre...))
	}
	assert.Equal(t, 200, from(e, "GET", "/items/1", "192.0.2.1:1"))
}

// Limit refuses a nil or zero middleware, RealIP a nil server, and Login a
// nil or zero guard (it panicked at the first login, or answered every
// login 413), when the server is built.
func TestConstructorsPanicAtSetup(t *testing.T) {
	for name, f := range map[string]func(){
		"Limit(nil)":  func() { echolimit.Limit(nil) },
		"Limit(zero)": func() { echolimit.Limit(new(middleware.Middleware)) },
		"RealIP(nil)": func() { echolimit.RealIP(nil) },
		"Login(nil)":  func() { echolimit.Login(nil) },
		"Login(zero)": func() { echolimit.Login(new(login.Guard)) },
	} {
		func() {
			defer func() {
				err, _ := recover().(error)
				assert.ErrorIs(t, err, core.ErrInvalidConfig, name)
			}()
			f()
		}()
	}
}

// denier is a custom Limiter whose denials say nothing useful about when
// to retry.
type denier struct{ retryAfter time.Duration }

func (d denier) AllowN(context.Context, string, int64) (core.Result, error) {
	return core.Result{RetryAfter: d.retryAfter}, nil
}

func (denier) Refund(context.Context, string, core.Result) (core.Result, error) {
	return core.Result{}, core.ErrNotTaken
}

// A 429 through the adapter carries a Retry-After of at least 1 second even
// when a custom limiter denies with a RetryAfter of 0 or less.
func TestRetryAfterFromCustomLimiter(t *testing.T) {
	for _, ra := range []time.Duration{0, -time.Hour, time.Millisecond} {
		m, err := middleware.New(denier{ra}, middleware.Options{})
		require.NoError(t, err)
		w := httptest.NewRecorder()
		mount(m).ServeHTTP(w, httptest.NewRequest("GET", "/items/1", nil))
		assert.Equal(t, http.StatusTooManyRequests, w.Code, ra)
		assert.Equal(t, "1", w.Header().Get("Retry-After"), ra)
	}
}

func mount(m *middleware.Middleware) http.Handler {
	e := echo.New()
	e.Use(echolimit.Limit(m))
	e.GET("/items/:id", ok)
	return e
}

// fixed returns a limiter of n per hour on a fake clock: no test outcome
// depends on when it runs.
func fixed(t testing.TB, n int64) *core.Limiter {
	t.Helper()
	p, err := core.Single("api", core.FixedWindow{Quota: n, Window: time.Hour})
	require.NoError(t, err)
	l, err := core.NewLimiter(p, core.WithClock(coretest.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))))
	require.NoError(t, err)
	return l
}

// quota is a route pattern and the requests an hour its limit admits.
type quota struct {
	pattern string
	n       int64
}

// selectOn returns a Select middleware over the routes of qs, added in
// the order given, each limited by fixed to its quota.
func selectOn(t testing.TB, qs ...quota) *middleware.Middleware {
	t.Helper()
	rt := middleware.NewRoutes(nil)
	for _, q := range qs {
		require.NoError(t, rt.Add(q.pattern, fixed(t, q.n)))
	}
	m, err := middleware.NewSelect(rt, middleware.Options{})
	require.NoError(t, err)
	return m
}

// thrice sends method path to h three times from one client and returns
// the codes.
func thrice(h http.Handler, method, path string) []int {
	var codes []int
	for range 3 {
		codes = append(codes, from(h, method, path, "192.0.2.1:1"))
	}
	return codes
}
