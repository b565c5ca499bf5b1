package stacktest

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// CheckPerIPCountsEveryRequest checks a router's one-line per-IP
// middleware: h is the router with it mounted on the whole router, made
// with the rate "3/hour", and one route, GET /hello. Every request of the
// client counts, whatever the router answers it: GET /hello (200), HEAD
// /hello (head: the router's own answer, 404 or 405), GET /nowhere (404),
// and the fourth request is refused with 429, a problem+json body and the
// "per-ip" policy header.
func CheckPerIPCountsEveryRequest(t *testing.T, h http.Handler, head int) {
	t.Helper()
	do := func(method, path string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(method, path, nil))
		return w
	}
	assert.Equal(t, http.StatusOK, do("GET", "/hello").Code)
	assert.Equal(t, head, do("HEAD", "/hello").Code)
	assert.Equal(t, http.StatusNotFound, do("GET", "/nowhere").Code)
	w := do("HEAD", "/hello")
	assert.Equal(t, http.StatusTooManyRequests, w.Code)
	assert.Equal(t, "application/problem+json", w.Header().Get("Content-Type"))
	assert.Equal(t, `"per-ip";q=3;w=3600`, w.Header().Get("RateLimit-Policy"))
}

// CheckPerIPInvalidRate checks a router's PerIP and MustPerIP on an
// invalid rate: PerIP returns no middleware and an error wrapping
// core.ErrInvalidConfig whose core.ParseError names the column, and
// MustPerIP panics with that error (when the router is built).
func CheckPerIPInvalidRate[M any](t *testing.T, perIP func(rate string, opts ...core.Option) (M, error), mustPerIP func(rate string, opts ...core.Option) M) {
	t.Helper()
	mw, err := perIP("100/mni")
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	assert.Nil(t, mw)
	var pe *core.ParseError
	require.True(t, errors.As(err, &pe))
	assert.Equal(t, 5, pe.Column)
	assert.PanicsWithError(t, err.Error(), func() { mustPerIP("100/mni") })
}

// CheckPerIPPreflights checks that a router's one-line per-IP middleware
// gives no second budget through CORS preflights: app returns the router
// with the middleware made with the rate "1/hour" mounted on the whole
// router, and handler h at /any for every method, at /opt for OPTIONS
// alone and at /get for GET alone. A preflight reaching h (at /any or
// /opt) is counted in the client's one bucket: after a GET it is refused
// (429) and h has not run for it; a preflight to /get, which the router
// answers itself, is limited in a bucket of its own.
func CheckPerIPPreflights(t *testing.T, app func(h http.Handler) http.Handler) {
	t.Helper()
	hits := 0
	h := app(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits++ }))
	do := func(method, path, remote string, preflight bool) int {
		r := httptest.NewRequest(method, path, nil)
		r.RemoteAddr = remote
		if preflight {
			r.Header.Set("Origin", "https://app.example")
			r.Header.Set("Access-Control-Request-Method", "GET")
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	for _, path := range []string{"/any", "/opt"} {
		hits = 0
		remote := "192.0.2.1:1"
		if path == "/opt" {
			remote = "192.0.2.2:1"
		}
		assert.Equal(t, http.StatusOK, do("GET", "/get", remote, false), path)
		assert.Equal(t, http.StatusTooManyRequests, do("OPTIONS", path, remote, true), path)
		assert.Equal(t, 1, hits, "%s: the handler ran for the preflight", path)
	}
	hits = 0
	assert.NotEqual(t, http.StatusTooManyRequests, do("OPTIONS", "/get", "192.0.2.1:1", true))
	assert.Equal(t, http.StatusTooManyRequests, do("OPTIONS", "/get", "192.0.2.1:1", true))
	assert.Equal(t, 0, hits, "/get: the handler ran for a preflight")
}

// CheckLimitPreflights is [CheckPerIPPreflights] for a router's general
// mount: app returns the router with m mounted on the whole router and h
// at /any, /opt and /get as there. It is run with m a single limiter of
// 1/hour (middleware.New, as middleware.PerIP makes it), a keyed one
// (NewKeyed, by the client IP) and a Routes (NewRoutes, whose default
// limiter of 1/hour limits every path, with a route of its own at
// /elsewhere): a preflight reaching h at the OPTIONS-only /opt, which no
// route names, is counted in the client's bucket (the default's), not in
// a preflight bucket of its own.
func CheckLimitPreflights(t *testing.T, app func(m *middleware.Middleware, h http.Handler) http.Handler) {
	t.Helper()
	mks := map[string]func() *middleware.Middleware{
		"New": func() *middleware.Middleware { return middleware.MustPerIP("1/hour") },
		"NewKeyed": func() *middleware.Middleware {
			m, err := middleware.NewKeyed(ipKeys{middleware.Rate("keyed", "1/hour")}, middleware.Options{})
			require.NoError(t, err)
			return m
		},
		"NewRoutes": func() *middleware.Middleware {
			rt := middleware.NewRoutes(middleware.Rate("def", "1/hour"))
			require.NoError(t, rt.Add("GET /elsewhere", middleware.Rate("elsewhere", "1/hour")))
			m, err := middleware.NewSelect(rt, middleware.Options{})
			require.NoError(t, err)
			return m
		},
	}
	for name, mk := range mks {
		t.Run(name, func(t *testing.T) {
			m := mk()
			CheckPerIPPreflights(t, func(h http.Handler) http.Handler { return app(m, h) })
		})
	}
}

// ipKeys is a KeySelector counting each client IP with l.
type ipKeys struct{ l middleware.Limiter }

func (k ipKeys) SelectKey(r *http.Request, _ string) (middleware.Limiter, string, error) {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	return k.l, host, err
}
