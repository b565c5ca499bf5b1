package middleware_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/headers"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// routesMiddleware returns a middleware over routes made by add, each
// limited to n per hour on a fake clock.
func routesMiddleware(t *testing.T, opts middleware.Options, n int64, patterns ...string) *middleware.Middleware {
	t.Helper()
	clk := newClock()
	rt := middleware.NewRoutes(nil)
	for _, p := range patterns {
		require.NoError(t, rt.Add(p, limiter(t, clk, core.FixedWindow{Quota: n, Window: time.Hour})))
	}
	m, err := middleware.NewSelect(rt, opts)
	require.NoError(t, err)
	return m
}

// begin decides a request as an adapter does, with a route template.
func begin(m *middleware.Middleware, method, path, template, remote string) int {
	r := httptest.NewRequest(method, path, nil)
	r.RemoteAddr = remote
	w := httptest.NewRecorder()
	if _, ok := m.Begin(w, r, template); !ok {
		return w.Code
	}
	return http.StatusOK
}

// HEAD reaches the GET handler (ServeMux, chi's GetHead, routes registered
// for both methods): it is limited in the GET route's bucket, both ways
// round, whether the route is found by ServeMux pattern or by an adapter's
// template.
func TestHeadIsLimitedLikeGet(t *testing.T) {
	t.Run("template", func(t *testing.T) {
		m := routesMiddleware(t, middleware.Options{}, 3, "GET /x/{id}")
		for i := range 3 {
			assert.Equal(t, 200, begin(m, "GET", "/x/1", "/x/{id}", "192.0.2.1:1"), i)
		}
		assert.Equal(t, 429, begin(m, "HEAD", "/x/1", "/x/{id}", "192.0.2.1:1"))
		for i := range 3 {
			assert.Equal(t, 200, begin(m, "HEAD", "/x/1", "/x/{id}", "192.0.2.2:1"), i)
		}
		assert.Equal(t, 429, begin(m, "GET", "/x/2", "/x/{id}", "192.0.2.2:1"))
	})
	t.Run("ServeMux", func(t *testing.T) {
		m := routesMiddleware(t, middleware.Options{}, 3, "GET /x")
		app := http.NewServeMux()
		app.HandleFunc("GET /x", okHandler)
		h := m.Handler(app)
		for i := range 3 {
			assert.Equal(t, 200, serve(h, "GET", "/x", "192.0.2.1:1", nil), i)
		}
		assert.Equal(t, 429, serve(h, "HEAD", "/x", "192.0.2.1:1", nil))
		for i := range 3 {
			assert.Equal(t, 200, serve(h, "HEAD", "/x", "192.0.2.2:1", nil), i)
		}
		assert.Equal(t, 429, serve(h, "GET", "/x", "192.0.2.2:1", nil))
	})
	t.Run("a HEAD route of its own", func(t *testing.T) {
		m := routesMiddleware(t, middleware.Options{}, 1, "GET /x", "HEAD /x")
		assert.Equal(t, 200, begin(m, "GET", "/x", "/x", "192.0.2.1:1"))
		assert.Equal(t, 200, begin(m, "HEAD", "/x", "/x", "192.0.2.1:1"))
		assert.Equal(t, 429, begin(m, "HEAD", "/x", "/x", "192.0.2.1:1"))
	})
}

// A method in another case is the same method, in patterns and requests.
func TestMethodCaseIsOneRoute(t *testing.T) {
	m := routesMiddleware(t, middleware.Options{}, 2, "get /x")
	h := m.Handler(okHandler) // a router that reaches the handler whatever the case
	assert.Equal(t, 200, serve(h, "GET", "/x", "192.0.2.1:1", nil))
	assert.Equal(t, 200, serve(h, "get", "/x", "192.0.2.1:1", nil))
	assert.Equal(t, 429, serve(h, "Get", "/x", "192.0.2.1:1", nil))
	assert.Equal(t, 200, begin(m, "gEt", "/x", "/x", "192.0.2.2:1"))
	assert.Equal(t, 200, begin(m, "GET", "/x", "/x", "192.0.2.2:1"))
	assert.Equal(t, 429, begin(m, "get", "/x", "/x", "192.0.2.2:1"))

	rt := middleware.NewRoutes(nil)
	l := limiter(t, newClock(), core.FixedWindow{Quota: 1, Window: time.Hour})
	require.NoError(t, rt.Add("POST /login", l))
	require.ErrorIs(t, rt.Add("post  /login", l), core.ErrInvalidConfig, "the same route twice")
}

// Routers other than ServeMux serve variants of a path with a route's
// handler (chi with StripSlashes or CleanPath, case-insensitive routers):
// each variant is limited in the route's bucket, not a fresh one.
func TestPathVariantsShareTheRouteBucket(t *testing.T) {
	for _, variant := range []string{"/login/", "//login", "/LOGIN", "/Login/", "/a/../login/", "/./login//"} {
		t.Run(variant, func(t *testing.T) {
			m := routesMiddleware(t, middleware.Options{}, 2, "POST /login")
			h := m.Handler(okHandler) // a router that normalises paths
			assert.Equal(t, 200, serve(h, "POST", "/login", "192.0.2.1:1", nil))
			assert.Equal(t, 200, serve(h, "POST", "/login", "192.0.2.1:1", nil))
			assert.Equal(t, 429, serve(h, "POST", variant, "192.0.2.1:1", nil))
			// And the other way round.
			assert.Equal(t, 200, serve(h, "POST", variant, "192.0.2.2:1", nil))
			assert.Equal(t, 200, serve(h, "POST", variant, "192.0.2.2:1", nil))
			assert.Equal(t, 429, serve(h, "POST", "/login", "192.0.2.2:1", nil))
		})
	}
	t.Run("subtree without its slash", func(t *testing.T) {
		m := routesMiddleware(t, middleware.Options{}, 1, "GET /api/")
		h := m.Handler(okHandler)
		assert.Equal(t, 200, serve(h, "GET", "/api/x", "192.0.2.1:1", nil))
		assert.Equal(t, 429, serve(h, "GET", "/api", "192.0.2.1:1", nil))
	})
	t.Run("past a catch-all", func(t *testing.T) {
		// "/" holds every path: a variant of /login must still be counted
		// as /login, not as the catch-all.
		clk := newClock()
		rt := middleware.NewRoutes(nil)
		require.NoError(t, rt.Add("/", limiter(t, clk, core.FixedWindow{Quota: 100, Window: time.Hour})))
		require.NoError(t, rt.Add("/static/", limiter(t, clk, core.FixedWindow{Quota: 100, Window: time.Hour})))
		require.NoError(t, rt.Add("POST /login", limiter(t, clk, core.FixedWindow{Quota: 1, Window: time.Hour})))
		m, err := middleware.NewSelect(rt, middleware.Options{})
		require.NoError(t, err)
		h := m.Handler(okHandler)
		assert.Equal(t, 200, serve(h, "POST", "/login", "192.0.2.1:1", nil))
		for _, v := range []string{"/login/", "/LOGIN", "//Login/"} {
			assert.Equal(t, 429, serve(h, "POST", v, "192.0.2.1:1", nil), v)
		}
		for range 3 {
			assert.Equal(t, 200, serve(h, "POST", "/other", "192.0.2.1:1", nil))
			assert.Equal(t, 200, serve(h, "GET", "/static/x", "192.0.2.1:1", nil))
		}
	})
	t.Run("a subtree's own path is the subtree's", func(t *testing.T) {
		// In a ServeMux app "/api/" reaches the "/api/" handler: it must
		// not be counted against the looser exact route "GET /api".
		clk := newClock()
		rt := middleware.NewRoutes(nil)
		require.NoError(t, rt.Add("/api/", limiter(t, clk, core.FixedWindow{Quota: 1, Window: time.Hour})))
		require.NoError(t, rt.Add("GET /api", limiter(t, clk, core.FixedWindow{Quota: 100, Window: time.Hour})))
		m, err := middleware.NewSelect(rt, middleware.Options{})
		require.NoError(t, err)
		app := http.NewServeMux()
		app.HandleFunc("/api/", okHandler)
		app.HandleFunc("GET /api", okHandler)
		h := m.Handler(app)
		assert.Equal(t, 200, serve(h, "GET", "/api/", "192.0.2.1:1", nil))
		assert.Equal(t, 429, serve(h, "GET", "/api/", "192.0.2.1:1", nil))
		assert.Equal(t, 429, serve(h, "GET", "/api/x", "192.0.2.1:1", nil))
		assert.Equal(t, 200, serve(h, "GET", "/api", "192.0.2.1:1", nil))
	})
	t.Run("other paths stay apart", func(t *testing.T) {
		m := routesMiddleware(t, middleware.Options{}, 1, "POST /login")
		h := m.Handler(okHandler)
		assert.Equal(t, 200, serve(h, "POST", "/login", "192.0.2.1:1", nil))
		for _, p := range []string{"/loginx", "/login/x", "/x/login"} {
			assert.Equal(t, 200, serve(h, "POST", p, "192.0.2.1:1", nil), p)
		}
	})
}

func preflight(h http.Handler, path, method, remote string) int {
	return serve(h, "OPTIONS", path, remote, map[string]string{
		"Origin": "https://example.com", "Access-Control-Request-Method": method,
	})
}

func TestPreflight(t *testing.T) {
	ip := "192.0.2.1:1"
	t.Run("default: own bucket, the route's limit", func(t *testing.T) {
		h := routesMiddleware(t, middleware.Options{}, 2, "GET /x").Handler(okHandler)
		assert.Equal(t, 200, preflight(h, "/x", "GET", ip))
		assert.Equal(t, 200, preflight(h, "/x", "get", ip))
		assert.Equal(t, 429, preflight(h, "/x", "GET", ip))
		assert.Equal(t, 200, serve(h, "GET", "/x", ip, nil))
		assert.Equal(t, 200, serve(h, "GET", "/x", ip, nil))
		assert.Equal(t, 429, serve(h, "GET", "/x", ip, nil))
	})
	t.Run("like the route", func(t *testing.T) {
		h := routesMiddleware(t, middleware.Options{Preflight: middleware.PreflightLikeRoute}, 2, "GET /x").Handler(okHandler)
		assert.Equal(t, 200, preflight(h, "/x", "GET", ip))
		assert.Equal(t, 200, serve(h, "GET", "/x", ip, nil))
		assert.Equal(t, 429, serve(h, "GET", "/x", ip, nil))
		assert.Equal(t, 429, preflight(h, "/x", "GET", ip))
	})
	t.Run("as OPTIONS", func(t *testing.T) {
		h := routesMiddleware(t, middleware.Options{Preflight: middleware.PreflightAsOptions}, 2, "GET /x").Handler(okHandler)
		for range 5 {
			assert.Equal(t, 200, preflight(h, "/x", "GET", ip))
		}
		assert.Equal(t, 200, serve(h, "GET", "/x", ip, nil))
		assert.Equal(t, 200, serve(h, "GET", "/x", ip, nil))
		assert.Equal(t, 429, serve(h, "GET", "/x", ip, nil))
	})
	// A preflight the router serves with a handler (a route of every method
	// or an OPTIONS route) is that route's request in every mode, whatever
	// method it announces: never a free path to the handler.
	for _, mode := range []middleware.Preflight{middleware.PreflightOwnBucket, middleware.PreflightLikeRoute, middleware.PreflightAsOptions} {
		t.Run("reaching a handler/"+mode.String(), func(t *testing.T) {
			h := routesMiddleware(t, middleware.Options{Preflight: mode}, 2, "/any", "OPTIONS /opt").Handler(okHandler)
			assert.Equal(t, 200, preflight(h, "/any", "DELETE", ip))
			assert.Equal(t, 200, serve(h, "GET", "/any", ip, nil))
			assert.Equal(t, 429, preflight(h, "/any", "PUT", ip))
			assert.Equal(t, 200, preflight(h, "/opt", "GET", ip))
			assert.Equal(t, 200, serve(h, "OPTIONS", "/opt", ip, nil))
			assert.Equal(t, 429, preflight(h, "/opt", "POST", ip))
		})
	}
	t.Run("with a template", func(t *testing.T) {
		m := routesMiddleware(t, middleware.Options{}, 1, "POST /x/{id}")
		r := httptest.NewRequest("OPTIONS", "/x/1", nil)
		r.RemoteAddr = ip
		r.Header.Set("Origin", "https://example.com")
		r.Header.Set("Access-Control-Request-Method", "POST")
		_, ok := m.Begin(httptest.NewRecorder(), r, "/x/{id}")
		assert.True(t, ok)
		w := httptest.NewRecorder()
		_, ok = m.Begin(w, r, "/x/{id}")
		assert.False(t, ok)
		assert.Equal(t, 429, w.Code)
		assert.Equal(t, 200, begin(m, "POST", "/x/1", "/x/{id}", ip), "preflights have a bucket of their own")
	})
	t.Run("unknown mode", func(t *testing.T) {
		_, err := middleware.New(limiter(t, newClock(), core.GCRA{Rate: core.PerSecond(1)}), middleware.Options{Preflight: 9})
		require.ErrorIs(t, err, core.ErrInvalidConfig)
	})
}

// denier is a custom Limiter that decides with a Result of its own making.
type denier struct{ res core.Result }

func (d denier) AllowN(context.Context, string, int64) (core.Result, error) { return d.res, nil }

func (d denier) Refund(context.Context, string, core.Result) (core.Result, error) {
	return core.Result{}, core.ErrNotTaken
}

func middlewareHeaders() (*headers.Writer, error) {
	return headers.New(headers.Options{Omit: headers.AllFields})
}

// Every 429 carries a Retry-After of at least one second, whatever a custom
// Limiter's Result says and whatever the header Writer omits.
func TestRetryAfterOnEvery429(t *testing.T) {
	omitAll, err := middlewareHeaders()
	require.NoError(t, err)
	renamed, err := headers.New(headers.Options{Names: map[headers.Field]string{headers.RetryAfter: "X-Retry-In"}})
	require.NoError(t, err)
	write429 := func(w http.ResponseWriter, _ *http.Request, _ core.Result) { w.WriteHeader(http.StatusTooManyRequests) }
	for _, ra := range []time.Duration{0, -time.Second, core.Never - 1, -1 << 63, time.Nanosecond, 1500 * time.Millisecond, core.Never} {
		for name, opts := range map[string]middleware.Options{
			"default":           {},
			"no header fields":  {Headers: omitAll},
			"renamed":           {Headers: renamed},
			"custom Denied 429": {Denied: write429},
		} {
			res := core.Result{Allowed: false, RetryAfter: ra, ResetAfter: -time.Minute}
			m, err := middleware.New(denier{res}, opts)
			require.NoError(t, err)
			w := httptest.NewRecorder()
			m.Handler(okHandler).ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
			if ra == core.Never && opts.Denied == nil {
				assert.Equal(t, http.StatusRequestEntityTooLarge, w.Code, "%v %s", ra, name)
				continue
			}
			require.Equal(t, http.StatusTooManyRequests, w.Code, "%v %s", ra, name)
			v := w.Header().Values("Retry-After")
			require.Len(t, v, 1, "%v %s", ra, name)
			s, err := strconv.ParseInt(v[0], 10, 64)
			require.NoError(t, err, "%v %s", ra, name)
			assert.GreaterOrEqual(t, s, int64(1), "%v %s", ra, name)
			if ra == 1500*time.Millisecond {
				assert.Equal(t, int64(2), s)
			}
		}
	}
}

// A template that names no route (a route written in ServeMux syntax for a
// gin or echo template) falls back to matching the request itself: the
// route is not left unlimited for its spelling.
func TestTemplateMissFallsBackToPatterns(t *testing.T) {
	m := routesMiddleware(t, middleware.Options{}, 1, "GET /users/{id}")
	assert.Equal(t, 200, begin(m, "GET", "/users/5", "/users/:id", "192.0.2.1:1"))
	assert.Equal(t, 429, begin(m, "HEAD", "/users/6", "/users/:id", "192.0.2.1:1"))
	assert.Equal(t, 200, begin(m, "GET", "/other", "/other", "192.0.2.1:1"))
	assert.Equal(t, 200, begin(m, "GET", "/other", "/other", "192.0.2.1:1"))
}
