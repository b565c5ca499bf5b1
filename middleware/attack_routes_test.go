package middleware_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A route naming a host is one route for every spelling of that host
// (DNS names are case-insensitive; a trailing dot names the same host):
// a router that ignores the host (chi, gin, echo, a catch-all handler)
// serves them all with the route's handler, so none gets a fresh bucket,
// through ServeMux matching or an adapter's template alike. Before, each
// spelling was unlimited.
func TestAttackHostSpellingsShareTheRouteBucket(t *testing.T) {
	for _, host := range []string{"API.EXAMPLE.COM", "api.example.com.", "Api.Example.Com.:443", "api.EXAMPLE.com:8080"} {
		t.Run(host, func(t *testing.T) {
			m := routesMiddleware(t, middleware.Options{}, 1, "POST api.example.com/login")
			at := func(host, template string) int {
				r := httptest.NewRequest("POST", "/login", nil)
				r.Host = host
				r.RemoteAddr = "192.0.2.1:1"
				w := httptest.NewRecorder()
				if template == "-" {
					m.Handler(okHandler).ServeHTTP(w, r)
					return w.Code
				}
				if _, ok := m.Begin(w, r, template); !ok {
					return w.Code
				}
				return http.StatusOK
			}
			assert.Equal(t, 200, at("api.example.com", "-"))
			assert.Equal(t, 429, at(host, "-"), "through ServeMux matching")
			assert.Equal(t, 429, at(host, "/login"), "with a router's template")
		})
	}
	t.Run("other hosts stay apart", func(t *testing.T) {
		m := routesMiddleware(t, middleware.Options{}, 1, "POST api.example.com/login")
		h := m.Handler(okHandler)
		for _, host := range []string{"api.example.com", "www.example.com", "example.com", "api.example.co", ""} {
			r := httptest.NewRequest("POST", "/login", nil)
			r.Host = host
			r.RemoteAddr = "192.0.2.1:1"
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			assert.Equal(t, 200, w.Code, host)
		}
	})
}

// quota is a route pattern and its limit per hour.
type quota struct {
	pattern string
	n       int64
}

// quotaRoutes returns a middleware over routes, each limited to its quota
// per hour on one fake clock, added in order, and def (nil: none) for the
// requests of no route.
func quotaRoutes(t *testing.T, def bool, routes ...quota) *middleware.Middleware {
	t.Helper()
	clk := newClock()
	var d middleware.Limiter
	if def {
		d = limiter(t, clk, core.FixedWindow{Quota: 100, Window: time.Hour})
	}
	rt := middleware.NewRoutes(d)
	for _, r := range routes {
		require.NoError(t, rt.Add(r.pattern, limiter(t, clk, core.FixedWindow{Quota: r.n, Window: time.Hour})))
	}
	m, err := middleware.NewSelect(rt, middleware.Options{})
	require.NoError(t, err)
	return m
}

// methodLessApp is an application registering its login handler without a
// method, as much net/http code does (mux.HandleFunc("/login", …)): it
// serves every method, reading credentials from a PUT's or PATCH's body
// and a GET's query as from a POST's. hits counts the handler's runs.
func methodLessApp(hits *int) *http.ServeMux {
	app := http.NewServeMux()
	app.HandleFunc("/login", func(http.ResponseWriter, *http.Request) { *hits++ })
	app.HandleFunc("/", func(http.ResponseWriter, *http.Request) {})
	return app
}

var otherMethods = []string{"PUT", "PATCH", "DELETE", "OPTIONS", "GET", "HEAD", "TRACE", "FOO", "post"}

// A route limited as "POST /login" while the application's handler for
// /login serves every method: each method reaches that handler, so each is
// limited in the route's bucket, whether the middleware wraps the
// application's ServeMux or is mounted on the handler inside it. Before,
// every method but POST reached it unlimited (or on the default limit).
func TestAttackMethodsOfAMethodLessHandler(t *testing.T) {
	mounts := map[string]func(m *middleware.Middleware, hits *int) http.Handler{
		"wrapping the mux": func(m *middleware.Middleware, hits *int) http.Handler { return m.Handler(methodLessApp(hits)) },
		"inside the mux": func(m *middleware.Middleware, hits *int) http.Handler {
			app := http.NewServeMux()
			app.Handle("/login", m.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { *hits++ })))
			app.HandleFunc("/", func(http.ResponseWriter, *http.Request) {})
			return app
		},
	}
	for name, mount := range mounts {
		for _, def := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/default %v", name, def), func(t *testing.T) {
				m := quotaRoutes(t, def, quota{"POST /login", 2})
				hits := 0
				h := mount(m, &hits)
				assert.Equal(t, 200, serve(h, "POST", "/login", "192.0.2.1:1", nil))
				for _, method := range otherMethods {
					want := 429
					if method == otherMethods[0] {
						want = 200
					}
					assert.Equal(t, want, serve(h, method, "/login", "192.0.2.1:1", nil), method)
				}
				assert.Equal(t, 2, hits, "the handler's runs")
				assert.Equal(t, 200, serve(h, "GET", "/elsewhere", "192.0.2.1:1", nil))
			})
		}
	}
	t.Run("a method's own route still wins", func(t *testing.T) {
		m := quotaRoutes(t, false, quota{"POST /login", 1}, quota{"GET /login", 3})
		hits := 0
		h := m.Handler(methodLessApp(&hits))
		assert.Equal(t, []int{200, 429}, []int{serve(h, "POST", "/login", "192.0.2.1:1", nil), serve(h, "PUT", "/login", "192.0.2.1:1", nil)})
		assert.Equal(t, []int{200, 200, 200, 429}, []int{
			serve(h, "GET", "/login", "192.0.2.1:1", nil), serve(h, "HEAD", "/login", "192.0.2.1:1", nil),
			serve(h, "GET", "/login", "192.0.2.1:1", nil), serve(h, "GET", "/login", "192.0.2.1:1", nil),
		})
	})
	t.Run("method-specific handlers stay apart", func(t *testing.T) {
		m := quotaRoutes(t, false, quota{"POST /items", 1})
		app := http.NewServeMux()
		app.HandleFunc("POST /items", func(http.ResponseWriter, *http.Request) {})
		app.HandleFunc("GET /items", func(http.ResponseWriter, *http.Request) {})
		h := m.Handler(app)
		assert.Equal(t, 200, serve(h, "POST", "/items", "192.0.2.1:1", nil))
		for range 3 {
			assert.Equal(t, 200, serve(h, "GET", "/items", "192.0.2.1:1", nil), "GET /items is another handler")
		}
	})
}

// A sub-mux mounted under a prefix ("/api/" to http.StripPrefix and a mux
// of its own): the application's pattern is the subtree's, not the final
// handler's, so the request is matched by its own path: POST /api/login
// stays on its strict route, not the subtree's looser one.
func TestAppSubtreePatternRoutesFurther(t *testing.T) {
	build := func() *middleware.Middleware {
		return quotaRoutes(t, false, quota{"/api/", 100}, quota{"POST /api/login", 1})
	}
	inner := http.NewServeMux()
	inner.HandleFunc("/", func(http.ResponseWriter, *http.Request) {})
	wrapped := http.NewServeMux()
	wrapped.Handle("/api/", http.StripPrefix("/api", inner))
	inside := http.NewServeMux()
	inside.Handle("/api/", build().Handler(http.StripPrefix("/api", inner)))
	for name, h := range map[string]http.Handler{"wrapping the mux": build().Handler(wrapped), "inside the mux": inside} {
		assert.Equal(t, 200, serve(h, "POST", "/api/login", "192.0.2.1:1", nil), name)
		assert.Equal(t, 429, serve(h, "POST", "/api/login", "192.0.2.1:1", nil), name)
		assert.Equal(t, 200, serve(h, "POST", "/api/other", "192.0.2.1:1", nil), name)
	}
}

// A route written as a router's template (gin's and echo's ":id" and
// "*filepath", chi's "{id:[0-9]+}") is matched by the request path too
// when no template comes with the request: a limiter mounted where the
// router has not routed yet (echo's e.Pre, the Use of a chi router that
// mounts another) or in front of a router it cannot ask. Before, such a
// route was matched only by its template, and every request of it came
// through unlimited; chi's regular-expression parameters were refused.
func TestAttackRouterTemplatesMatchWithoutTheTemplate(t *testing.T) {
	for pattern, paths := range map[string][]string{
		"GET /users/:id":           {"/users/5", "/users/6"},
		"GET /items/{id:[0-9]+}":   {"/items/1", "/items/22"},
		"GET /static/*filepath":    {"/static/a.css", "/static/js/b.js"},
		"GET /files/*":             {"/files/x", "/files/y/z"},
		"GET /f/{name}.{ext}":      {"/f/a.txt", "/f/b.png"},
		"GET /org/:org/repo/:repo": {"/org/a/repo/b", "/org/c/repo/d"},
	} {
		m := routesMiddleware(t, middleware.Options{}, 1, pattern)
		h := m.Handler(okHandler)
		assert.Equal(t, 200, serve(h, "GET", paths[0], "192.0.2.1:1", nil), pattern)
		assert.Equal(t, 429, serve(h, "GET", paths[1], "192.0.2.1:1", nil), pattern)
		assert.Equal(t, 429, serve(h, "HEAD", paths[1], "192.0.2.1:1", nil), pattern)
		assert.Equal(t, 200, serve(h, "GET", "/elsewhere", "192.0.2.1:1", nil), pattern)
		assert.Equal(t, 200, begin(m, "GET", paths[1], strings.TrimPrefix(pattern, "GET "), "192.0.2.2:1"), pattern)
		assert.Equal(t, 429, begin(m, "GET", paths[0], strings.TrimPrefix(pattern, "GET "), "192.0.2.2:1"), pattern)
	}
	// One route in two routers' syntaxes, in one group: the templates of
	// both find it, and ServeMux matches its requests to it.
	clk := newClock()
	rt := middleware.NewRoutes(nil)
	l := limiter(t, clk, core.FixedWindow{Quota: 2, Window: time.Hour})
	require.NoError(t, rt.Share("users", l, "GET /users/{id}", "GET /users/:id"))
	m, err := middleware.NewSelect(rt, middleware.Options{})
	require.NoError(t, err)
	assert.Equal(t, 200, begin(m, "GET", "/users/1", "/users/:id", "192.0.2.1:1"))
	assert.Equal(t, 200, begin(m, "GET", "/users/2", "/users/{id}", "192.0.2.1:1"))
	assert.Equal(t, 429, begin(m, "GET", "/users/3", "", "192.0.2.1:1"))
	assert.ErrorIs(t, middleware.NewRoutes(nil).Add("GET /users/{id", l), core.ErrInvalidConfig, "a malformed pattern")
}

// Held: through a ServeMux application, no encoding of a limited route's
// path (percent-encoded letters or slashes, case, dot segments, a query)
// reaches its handler once the route's bucket is spent: each is either
// limited in that bucket or served by another handler.
func TestEncodedPathsReachNoFreshBucket(t *testing.T) {
	m := quotaRoutes(t, false, quota{"POST /login", 1})
	hits := 0
	app := http.NewServeMux()
	app.HandleFunc("/", func(http.ResponseWriter, *http.Request) {})
	app.HandleFunc("POST /login", func(http.ResponseWriter, *http.Request) { hits++ })
	h := m.Handler(app)
	for _, p := range []string{"/login", "/log%69n", "/%6Cogin", "/login%2F", "/login%2f..", "/LOG%49N", "/login;x=1",
		"/login%00", "/login?x", "/./login", "/login/.", "/login%20", "/%2e/login", "//login", "/a/../login"} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", p, nil))
	}
	assert.Equal(t, 1, hits)
}

// A CORS preflight that the application serves with a handler registered
// without a method reaches that handler: it is limited in the route's own
// bucket, not one of its own, in every Preflight mode.
func TestPreflightToAMethodLessHandler(t *testing.T) {
	for _, mode := range []middleware.Preflight{middleware.PreflightOwnBucket, middleware.PreflightLikeRoute, middleware.PreflightAsOptions} {
		rt := middleware.NewRoutes(nil)
		require.NoError(t, rt.Add("GET /x", limiter(t, newClock(), core.FixedWindow{Quota: 2, Window: time.Hour})))
		m, err := middleware.NewSelect(rt, middleware.Options{Preflight: mode})
		require.NoError(t, err)
		app := http.NewServeMux()
		app.HandleFunc("/x", func(http.ResponseWriter, *http.Request) {})
		h := m.Handler(app)
		assert.Equal(t, 200, preflight(h, "/x", "GET", "192.0.2.1:1"), mode)
		assert.Equal(t, 200, serve(h, "GET", "/x", "192.0.2.1:1", nil), mode)
		assert.Equal(t, 429, preflight(h, "/x", "GET", "192.0.2.1:1"), mode)
		assert.Equal(t, 429, serve(h, "GET", "/x", "192.0.2.1:1", nil), mode)
	}
}

// A CORS preflight that reaches a handler is counted in the bucket the same
// OPTIONS request without its preflight fields would use, whatever the
// Selector. Before, with a single limiter (PerIP, New), NewKeyed
// (APIKeyOrIP), or NewRoutes whose default limits a handler that no route
// names, such a preflight was counted in a fresh preflight bucket: with a
// limit of 1/hour spent by GET /search, OPTIONS /search with Origin and
// Access-Control-Request-Method was served by the handler registered
// without a method (2 runs of the handler for a limit of 1). Now it is
// refused 429 and the handler runs once, in every Preflight mode, whether
// the middleware wraps the ServeMux or is mounted on its handler.
func TestAttackPreflightReachingHandlerSharesItsBucket(t *testing.T) {
	hourly := func() middleware.Limiter {
		return limiter(t, newClock(), core.FixedWindow{Quota: 1, Window: time.Hour})
	}
	selectors := map[string]func(middleware.Options) (*middleware.Middleware, error){
		"PerIP": func(middleware.Options) (*middleware.Middleware, error) { return middleware.PerIP("1/hour") },
		"New":   func(o middleware.Options) (*middleware.Middleware, error) { return middleware.New(hourly(), o) },
		"Routes default": func(o middleware.Options) (*middleware.Middleware, error) {
			rt := middleware.NewRoutes(hourly())
			if err := rt.Add("POST /other", hourly()); err != nil {
				return nil, err
			}
			return middleware.NewSelect(rt, o)
		},
		"APIKeyOrIP": func(o middleware.Options) (*middleware.Middleware, error) {
			none := func(*http.Request) (string, bool) { return "", false }
			return middleware.APIKeyOrIP(none, hourly(), hourly(), o)
		},
	}
	modes := []middleware.Preflight{middleware.PreflightOwnBucket, middleware.PreflightLikeRoute, middleware.PreflightAsOptions}
	for name, mk := range selectors {
		for _, mode := range modes {
			for _, mounted := range []bool{false, true} {
				if name == "PerIP" && mode != middleware.PreflightOwnBucket {
					continue // PerIP has the zero Options
				}
				t.Run(fmt.Sprintf("%s/%v/mounted=%v", name, mode, mounted), func(t *testing.T) {
					m, err := mk(middleware.Options{Preflight: mode})
					require.NoError(t, err)
					served := 0
					search := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { served++ })
					mux := http.NewServeMux()
					var h http.Handler = mux
					if mounted {
						mux.Handle("/search", m.Handler(search))
					} else {
						mux.Handle("/search", search)
						h = m.Handler(mux)
					}
					assert.Equal(t, 200, serve(h, "GET", "/search?q=x", "192.0.2.1:1", nil))
					assert.Equal(t, 429, serve(h, "GET", "/search?q=x", "192.0.2.1:1", nil))
					assert.Equal(t, 429, preflight(h, "/search?q=x", "GET", "192.0.2.1:1"))
					assert.Equal(t, 1, served, "the handler ran past the spent limit")
				})
			}
		}
	}
}

// A preflight that reaches no handler (the ServeMux answers 405: the route
// serves GET alone) keeps the bucket of its own the default mode gives
// it, with a single limiter too: a browser's preflights take nothing from
// its allowance of real requests.
func TestPreflightReachingNoHandlerKeepsItsOwnBucket(t *testing.T) {
	m, err := middleware.PerIP("1/hour")
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.Handle("GET /search", okHandler)
	h := m.Handler(mux)
	assert.Equal(t, 405, preflight(h, "/search", "GET", "192.0.2.1:1"))
	assert.Equal(t, 429, preflight(h, "/search", "GET", "192.0.2.1:1"))
	assert.Equal(t, 200, serve(h, "GET", "/search", "192.0.2.1:1", nil))
	assert.Equal(t, 429, serve(h, "GET", "/search", "192.0.2.1:1", nil))
}

// A handler the application registers without a method serves every
// method at its path; a route guarding it written otherwise than its
// pattern (another wildcard name, with or without the pattern's host)
// guards it for every method too, as a route written as the pattern does.
// Before, such a route limited its own method only: PUT, PATCH, DELETE
// and GET reached the login handler on the default (100 an hour here)
// instead of the route's 1. A route of another handler at a path the
// method-less pattern also matches stays that handler's.
func TestAttackMethodLessHandlerRouteSpelledOtherwise(t *testing.T) {
	for _, c := range []struct{ app, route, path string }{
		{"/users/{id}/password", "POST /users/{user}/password", "/users/7/password"},
		{"api.example.com/login", "POST /login", "/login"},
		{"/login", "POST api.example.com/login", "/login"},
		{"/files/{name}", "POST /files/{f}", "/files/a"},
	} {
		t.Run(c.app, func(t *testing.T) {
			m := quotaRoutes(t, true, quota{c.route, 1})
			hits := 0
			app := http.NewServeMux()
			app.HandleFunc(c.app, func(http.ResponseWriter, *http.Request) { hits++ })
			h := m.Handler(app)
			var codes []int
			for _, method := range []string{"POST", "PUT", "PATCH", "DELETE", "GET"} {
				r := httptest.NewRequest(method, "http://api.example.com"+c.path, nil)
				r.RemoteAddr = "192.0.2.1:1"
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				codes = append(codes, w.Code)
			}
			assert.Equal(t, []int{200, 429, 429, 429, 429}, codes)
			assert.Equal(t, 1, hits, "the handler's runs")
		})
	}
	t.Run("another handler's route", func(t *testing.T) {
		m := quotaRoutes(t, true, quota{"POST /items/new", 1})
		app := http.NewServeMux()
		app.HandleFunc("/items/{id}", func(http.ResponseWriter, *http.Request) {})
		app.HandleFunc("POST /items/new", func(http.ResponseWriter, *http.Request) {})
		h := m.Handler(app)
		assert.Equal(t, 200, serve(h, "POST", "/items/new", "192.0.2.1:1", nil))
		for _, method := range []string{"PUT", "GET", "DELETE"} {
			assert.Equal(t, 200, serve(h, method, "/items/new", "192.0.2.1:1", nil), "%s reaches /items/{id}'s handler", method)
		}
	})
}

// A mux mounted under an outer mux's prefix ("/api/" to http.StripPrefix
// and the middleware wrapping the inner mux): the request arrives with
// the outer pattern, yet the inner mux is what serves it, and replaces
// the pattern as it dispatches. The middleware decides by the inner mux's
// pattern as Handler's documentation says, so a method-less login handler
// of the inner mux is limited as its route for every method. Before, the
// outer pattern ("/api/", a subtree) was kept: PUT, PATCH, DELETE and GET
// /api/login reached the handler on the default (4 runs of it for a route
// of 1).
func TestAttackInnerMuxPatternUnderAnOuterMux(t *testing.T) {
	m := quotaRoutes(t, true, quota{"POST /login", 1})
	hits := 0
	inner := http.NewServeMux()
	inner.HandleFunc("/login", func(http.ResponseWriter, *http.Request) { hits++ })
	inner.HandleFunc("/", func(http.ResponseWriter, *http.Request) {})
	var seen []string
	outer := http.NewServeMux()
	h := m.Handler(inner)
	outer.Handle("/api/", http.StripPrefix("/api", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		seen = append(seen, r.Pattern)
	})))
	var codes []int
	for _, method := range []string{"POST", "PUT", "PATCH", "DELETE", "GET"} {
		codes = append(codes, serve(outer, method, "/api/login", "192.0.2.1:1", nil))
	}
	assert.Equal(t, []int{200, 429, 429, 429, 429}, codes)
	assert.Equal(t, 1, hits, "the login handler's runs")
	assert.Equal(t, 200, serve(outer, "PUT", "/api/other", "192.0.2.1:1", nil))
	assert.Equal(t, []string{"/login", "/api/", "/api/", "/api/", "/api/", "/"}, seen,
		"after the decision the request's pattern is the outer one again, or the inner mux's once it served it")
}
