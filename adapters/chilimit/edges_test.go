package chilimit_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
	chimw "github.com/go-chi/chi/v5/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// routes returns a middleware limiting "GET /items/{id}" to n per hour.
func routes(t *testing.T, n int64, opts middleware.Options) *middleware.Middleware {
	t.Helper()
	rt := middleware.NewRoutes(nil)
	require.NoError(t, rt.Add("GET /items/{id}", fixed(t, n)))
	m, err := middleware.NewSelect(rt, opts)
	require.NoError(t, err)
	return m
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

// routers builds the ways of mounting the limiter on a chi router whose
// GET route also serves HEAD (middleware.GetHead).
func routers(m *middleware.Middleware) map[string]http.Handler {
	inline := chi.NewRouter()
	inline.Use(chimw.GetHead)
	inline.With(chilimit.Limit(m)).Get("/items/{id}", ok)

	muxAfter := chi.NewRouter()
	muxAfter.Use(chimw.GetHead, chilimit.LimitMux(m, muxAfter))
	muxAfter.Get("/items/{id}", ok)

	muxBefore := chi.NewRouter()
	muxBefore.Use(chilimit.LimitMux(m, muxBefore), chimw.GetHead)
	muxBefore.Get("/items/{id}", ok)

	group := chi.NewRouter()
	group.Use(chimw.GetHead)
	group.Group(func(r chi.Router) {
		r.Use(chilimit.Limit(m))
		r.Get("/items/{id}", ok)
	})
	return map[string]http.Handler{"inline": inline, "LimitMux after GetHead": muxAfter, "LimitMux before GetHead": muxBefore, "group": group}
}

// chi's GetHead serves HEAD with the GET handler: N GETs exhaust the limit
// and HEAD is then denied, and the other way round, however the limiter is
// mounted.
func TestHeadIsLimitedLikeGet(t *testing.T) {
	for name := range routers(routes(t, 1, middleware.Options{})) {
		t.Run(name, func(t *testing.T) {
			h := routers(routes(t, 3, middleware.Options{}))[name]
			for i := range 3 {
				require.Equal(t, 200, from(h, "GET", "/items/1", "192.0.2.1:1"), i)
			}
			assert.Equal(t, 429, from(h, "HEAD", "/items/2", "192.0.2.1:1"))
			for i := range 3 {
				require.Equal(t, 200, from(h, "HEAD", "/items/1", "192.0.2.2:1"), i)
			}
			assert.Equal(t, 429, from(h, "GET", "/items/2", "192.0.2.2:1"))
		})
	}
}

// Path-rewriting middleware (StripSlashes, CleanPath) mounted before or
// after LimitMux serves variants of a path with the route's handler: they
// are limited in the route's bucket.
func TestLimitMuxFollowsPathRewrites(t *testing.T) {
	for name, rewrite := range map[string]func(http.Handler) http.Handler{
		"StripSlashes": chimw.StripSlashes, "CleanPath": chimw.CleanPath,
	} {
		for _, before := range []bool{true, false} {
			m := routes(t, 2, middleware.Options{})
			r := chi.NewRouter()
			if before {
				r.Use(rewrite, chilimit.LimitMux(m, r))
			} else {
				r.Use(chilimit.LimitMux(m, r), rewrite)
			}
			r.Get("/items/{id}", ok)
			variant := "/items/1/"
			if name == "CleanPath" {
				variant = "//items/1"
			}
			msg := name + map[bool]string{true: " before", false: " after"}[before]
			require.Equal(t, 200, from(r, "GET", "/items/1", "192.0.2.1:1"), msg)
			require.Equal(t, 200, from(r, "GET", variant, "192.0.2.1:1"), msg)
			assert.Equal(t, 429, from(r, "GET", variant, "192.0.2.1:1"), msg)
			assert.Equal(t, 429, from(r, "GET", "/items/1", "192.0.2.1:1"), msg)
		}
	}
}

// A CORS preflight for a GET route that chi answers 405 (no OPTIONS route)
// is limited like the route in a bucket of its own by default, in the
// route's bucket with PreflightLikeRoute.
func TestPreflight(t *testing.T) {
	pre := []string{"Origin", "https://example.com", "Access-Control-Request-Method", "GET"}
	m := routes(t, 2, middleware.Options{})
	r := chi.NewRouter()
	r.Use(chilimit.LimitMux(m, r))
	r.Get("/items/{id}", ok)
	assert.Equal(t, 405, from(r, "OPTIONS", "/items/1", "192.0.2.1:1", pre...))
	assert.Equal(t, 405, from(r, "OPTIONS", "/items/2", "192.0.2.1:1", pre...))
	assert.Equal(t, 429, from(r, "OPTIONS", "/items/1", "192.0.2.1:1", pre...))
	assert.Equal(t, 200, from(r, "GET", "/items/1", "192.0.2.1:1"))

	m = routes(t, 2, middleware.Options{Preflight: middleware.PreflightLikeRoute})
	r = chi.NewRouter()
	r.Use(chilimit.LimitMux(m, r))
	r.Get("/items/{id}", ok)
	r.Options("/items/{id}", ok) // an OPTIONS handler of its own
	assert.Equal(t, 200, from(r, "OPTIONS", "/items/1", "192.0.2.1:1", pre...))
	assert.Equal(t, 200, from(r, "GET", "/items/1", "192.0.2.1:1"))
	assert.Equal(t, 429, from(r, "GET", "/items/1", "192.0.2.1:1"))
}

// The constructors refuse a nil or zero middleware, and LimitMux a nil
// router, when the router is built; the middleware they return refuses a
// nil next handler when it is applied (it panicked at every request).
func TestConstructorsPanicAtSetup(t *testing.T) {
	m := routes(t, 1, middleware.Options{})
	var nilRouter *chi.Mux
	for name, f := range map[string]func(){
		"Limit(m)(nil)":                func() { chilimit.Limit(m)(nil) },
		"LimitMux(m, r)(nil)":          func() { chilimit.LimitMux(m, chi.NewRouter())(nil) },
		"PerIP(rate)(nil)":             func() { chilimit.MustPerIP("1/min")(nil) },
		"Limit(m)(nil HandlerFunc)":    func() { chilimit.Limit(m)(http.HandlerFunc(nil)) },
		"LimitMux(m, r)(nil *chi.Mux)": func() { chilimit.LimitMux(m, chi.NewRouter())(nilRouter) },
		"Limit(nil)":                   func() { chilimit.Limit(nil) },
		"Limit(zero)":                  func() { chilimit.Limit(new(middleware.Middleware)) },
		"LimitMux(nil, r)":             func() { chilimit.LimitMux(nil, chi.NewRouter()) },
		"LimitMux(m, nil)":             func() { chilimit.LimitMux(m, nil) },
		"LimitMux(m, typed nil)":       func() { chilimit.LimitMux(m, nilRouter) },
	} {
		assert.Panics(t, f, name)
		func() {
			defer func() { assert.ErrorIs(t, recover().(error), core.ErrInvalidConfig, name) }()
			f()
		}()
	}
}

// LimitMux resolves HEAD to the GET route itself, also for chi patterns
// that are no ServeMux pattern (a catch-all "/*").
func TestLimitMuxHeadOnCatchAll(t *testing.T) {
	rt := middleware.NewRoutes(nil)
	require.NoError(t, rt.Add("GET /files/*", fixed(t, 2)))
	m, err := middleware.NewSelect(rt, middleware.Options{})
	require.NoError(t, err)
	r := chi.NewRouter()
	r.Use(chilimit.LimitMux(m, r), chimw.GetHead)
	r.Get("/files/*", ok)
	require.Equal(t, 200, from(r, "GET", "/files/a/b", "192.0.2.1:1"))
	require.Equal(t, 200, from(r, "HEAD", "/files/a/c", "192.0.2.1:1"))
	assert.Equal(t, 429, from(r, "HEAD", "/files/d", "192.0.2.1:1"))
	assert.Equal(t, 429, from(r, "GET", "/files/d", "192.0.2.1:1"))
}

// A catch-all route does not hide a variant of a limited route from
// LimitMux: with StripSlashes after it, "/items/1/" reaches the items
// handler and is counted as that route.
func TestLimitMuxVariantPastCatchAll(t *testing.T) {
	m := selectOn(t, quota{"GET /items/{id}", 1}, quota{"/*", 100})
	r := chi.NewRouter()
	r.Use(chilimit.LimitMux(m, r), chimw.StripSlashes)
	r.Get("/items/{id}", ok)
	r.Handle("/*", http.HandlerFunc(ok))
	require.Equal(t, 200, from(r, "GET", "/items/1", "192.0.2.1:1"))
	assert.Equal(t, 429, from(r, "GET", "/items/1/", "192.0.2.1:1"))
	for range 3 {
		assert.Equal(t, 200, from(r, "GET", "/elsewhere/", "192.0.2.1:1"))
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
	r := chi.NewRouter()
	r.With(chilimit.Limit(m)).Get("/items/{id}", ok)
	return r
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
