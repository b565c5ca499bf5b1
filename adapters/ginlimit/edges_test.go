package ginlimit_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/adapters/ginlimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// engine returns a gin engine whose "/items/:id" serves GET and HEAD (and
// OPTIONS with an OPTIONS handler when withOptions), limited to n per hour
// by the route "GET /items/:id".
func engine(t *testing.T, n int64, opts middleware.Options, withOptions bool) *gin.Engine {
	t.Helper()
	rt := middleware.NewRoutes(nil)
	require.NoError(t, rt.Add("GET /items/:id", fixed(t, n)))
	m, err := middleware.NewSelect(rt, opts)
	require.NoError(t, err)
	e := gin.New()
	e.Use(ginlimit.Limit(m, e))
	e.Match([]string{http.MethodGet, http.MethodHead}, "/items/:id", ok)
	if withOptions {
		e.OPTIONS("/items/:id", func(c *gin.Context) { c.Status(http.StatusNoContent) })
	}
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
	e := engine(t, 3, middleware.Options{}, false)
	for i := range 3 {
		require.Equal(t, 200, from(e, "GET", "/items/1", "192.0.2.1:1"), i)
	}
	assert.Equal(t, 429, from(e, "HEAD", "/items/2", "192.0.2.1:1"))
	for i := range 3 {
		require.Equal(t, 200, from(e, "HEAD", "/items/1", "192.0.2.2:1"), i)
	}
	assert.Equal(t, 429, from(e, "GET", "/items/2", "192.0.2.2:1"))
}

// A preflight served by an OPTIONS handler is limited like the GET route it
// announces: in a bucket of its own by default, in the route's with
// PreflightLikeRoute.
func TestPreflight(t *testing.T) {
	pre := []string{"Origin", "https://example.com", "Access-Control-Request-Method", "GET"}
	e := engine(t, 2, middleware.Options{}, true)
	assert.Equal(t, 204, from(e, "OPTIONS", "/items/1", "192.0.2.1:1", pre...))
	assert.Equal(t, 204, from(e, "OPTIONS", "/items/1", "192.0.2.1:1", pre...))
	assert.Equal(t, 429, from(e, "OPTIONS", "/items/1", "192.0.2.1:1", pre...))
	assert.Equal(t, 200, from(e, "GET", "/items/1", "192.0.2.1:1"))
	assert.Equal(t, 200, from(e, "GET", "/items/1", "192.0.2.1:1"))
	assert.Equal(t, 429, from(e, "GET", "/items/1", "192.0.2.1:1"))

	e = engine(t, 2, middleware.Options{Preflight: middleware.PreflightLikeRoute}, true)
	assert.Equal(t, 204, from(e, "OPTIONS", "/items/1", "192.0.2.1:1", pre...))
	assert.Equal(t, 200, from(e, "GET", "/items/1", "192.0.2.1:1"))
	assert.Equal(t, 429, from(e, "GET", "/items/1", "192.0.2.1:1"))
}

// Limit refuses a nil or zero middleware and a nil engine, ClientIP a nil
// engine, and Login a nil or zero guard (it panicked at the first login,
// or answered every login 413), when the engine is built.
func TestConstructorsPanicAtSetup(t *testing.T) {
	m, err := middleware.New(fixed(t, 1), middleware.Options{})
	require.NoError(t, err)
	for name, f := range map[string]func(){
		"Limit(nil, e)":  func() { ginlimit.Limit(nil, gin.New()) },
		"Limit(zero, e)": func() { ginlimit.Limit(new(middleware.Middleware), gin.New()) },
		"Limit(m, nil)":  func() { ginlimit.Limit(m, nil) },
		"ClientIP(nil)":  func() { ginlimit.ClientIP(nil) },
		"Login(nil)":     func() { ginlimit.Login(nil) },
		"Login(zero)":    func() { ginlimit.Login(new(login.Guard)) },
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
	e := gin.New()
	e.Use(ginlimit.Limit(m, e))
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

// A CORS handler answering preflights for routes without an OPTIONS route
// (gin routes them nowhere: the template is "") limits them when it is
// mounted after Limit, as their route would be, in a bucket of their own;
// mounted before Limit it answers them before Limit sees them: they are
// not limited at all (and reach no handler).
func TestPreflightAnsweredByACORSHandler(t *testing.T) {
	cors := func(c *gin.Context) {
		if c.Request.Method == http.MethodOptions && c.GetHeader("Origin") != "" {
			c.AbortWithStatus(http.StatusNoContent)
		}
	}
	pre := []string{"Origin", "https://example.com", "Access-Control-Request-Method", "GET"}
	for name, c := range map[string]struct {
		before bool
		want   []int
	}{
		"after Limit":  {want: []int{204, 204, 429, 429}},
		"before Limit": {before: true, want: []int{204, 204, 204, 204}},
	} {
		rt := middleware.NewRoutes(nil)
		require.NoError(t, rt.Add("GET /items/:id", fixed(t, 2)))
		m, err := middleware.NewSelect(rt, middleware.Options{})
		require.NoError(t, err)
		e := gin.New()
		if c.before {
			e.Use(cors, ginlimit.Limit(m, e))
		} else {
			e.Use(ginlimit.Limit(m, e), cors)
		}
		e.GET("/items/:id", ok)
		var got []int
		for range 4 {
			got = append(got, from(e, "OPTIONS", "/items/1", "192.0.2.1:1", pre...))
		}
		assert.Equal(t, c.want, got, name)
	}
}
