package chilimit_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
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

func get(h http.Handler, method, path string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(method, path, nil))
	return w
}

func ok(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) }

func TestLimitSeesTheRoutePattern(t *testing.T) {
	sel := &recorder{lim: limiter(t, core.GCRA{Rate: core.PerMinute(100)})}
	m, err := middleware.NewSelect(sel, middleware.Options{})
	require.NoError(t, err)
	r := chi.NewRouter()
	r.With(chilimit.Limit(m)).Get("/users/{id}", ok)
	r.Route("/api", func(r chi.Router) {
		r.With(chilimit.Limit(m)).Get("/items/{item}", ok)
		r.Route("/orgs/{org}", func(r chi.Router) {
			r.Group(func(r chi.Router) {
				r.Use(chilimit.Limit(m))
				r.Get("/", ok)
			})
		})
	})
	for _, path := range []string{"/users/1", "/users/2", "/api/items/x", "/api/orgs/o/"} {
		assert.Equal(t, http.StatusOK, get(r, http.MethodGet, path).Code, path)
	}
	assert.Equal(t, []string{"/users/{id}", "/users/{id}", "/api/items/{item}", "/api/orgs/{org}"}, sel.routes)
}

// The Use of a sub-router made by Route or Mount runs before that router
// routes, where chi names only the mount point's pattern: Limit finds the
// route chi will serve the request with, as LimitMux does.
func TestLimitInSubRouterUseFindsTheRoute(t *testing.T) {
	sel := &recorder{lim: limiter(t, core.GCRA{Rate: core.PerMinute(100)})}
	m, err := middleware.NewSelect(sel, middleware.Options{})
	require.NoError(t, err)
	r := chi.NewRouter()
	r.Route("/api", func(r chi.Router) {
		r.Use(chilimit.Limit(m))
		r.Get("/items/{item}", ok)
	})
	assert.Equal(t, http.StatusOK, get(r, http.MethodGet, "/api/items/x").Code)
	assert.Equal(t, []string{"/api/items/{item}"}, sel.routes)
}

func TestLimitMuxResolvesThePattern(t *testing.T) {
	sel := &recorder{lim: limiter(t, core.GCRA{Rate: core.PerMinute(100)})}
	m, err := middleware.NewSelect(sel, middleware.Options{})
	require.NoError(t, err)
	r := chi.NewRouter()
	r.Use(chilimit.LimitMux(m, r))
	r.Get("/users/{id}", ok)
	r.Mount("/api", func() http.Handler {
		sub := chi.NewRouter()
		sub.Get("/items/{item}", ok)
		return sub
	}())
	assert.Equal(t, http.StatusOK, get(r, http.MethodGet, "/users/7").Code)
	assert.Equal(t, http.StatusOK, get(r, http.MethodGet, "/api/items/x").Code)
	assert.Equal(t, http.StatusNotFound, get(r, http.MethodGet, "/nowhere").Code)
	assert.Equal(t, http.StatusMethodNotAllowed, get(r, http.MethodPost, "/users/7").Code)
	assert.Equal(t, []string{"/users/{id}", "/api/items/{item}", "", ""}, sel.routes)
}

func TestDeniedRequestsSkipTheHandler(t *testing.T) {
	m, err := middleware.New(limiter(t, core.GCRA{Rate: core.PerHour(1)}), middleware.Options{})
	require.NoError(t, err)
	calls := 0
	r := chi.NewRouter()
	r.With(chilimit.Limit(m)).Get("/", func(http.ResponseWriter, *http.Request) { calls++ })
	assert.Equal(t, http.StatusOK, get(r, http.MethodGet, "/").Code)
	w := get(r, http.MethodGet, "/")
	assert.Equal(t, http.StatusTooManyRequests, w.Code)
	assert.Equal(t, "application/problem+json", w.Header().Get("Content-Type"))
	assert.Equal(t, 1, calls)
}

func TestCountIfSeesTheHandlerStatus(t *testing.T) {
	for name, mount := range map[string]func(*middleware.Middleware, chi.Router) func(http.Handler) http.Handler{
		"Limit": func(m *middleware.Middleware, _ chi.Router) func(http.Handler) http.Handler { return chilimit.Limit(m) },
		"LimitMux": func(m *middleware.Middleware, r chi.Router) func(http.Handler) http.Handler {
			return chilimit.LimitMux(m, r)
		},
	} {
		t.Run(name, func(t *testing.T) {
			m, err := middleware.New(limiter(t, core.GCRA{Rate: core.PerHour(1)}), middleware.Options{CountIf: func(s int) bool { return s >= 400 }})
			require.NoError(t, err)
			status := http.StatusOK
			r := chi.NewRouter()
			r.Group(func(g chi.Router) {
				g.Use(mount(m, r))
				g.Post("/login", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(status) })
			})
			for range 3 {
				assert.Equal(t, http.StatusOK, get(r, http.MethodPost, "/login").Code)
			}
			status = http.StatusUnauthorized
			assert.Equal(t, http.StatusUnauthorized, get(r, http.MethodPost, "/login").Code)
			assert.Equal(t, http.StatusTooManyRequests, get(r, http.MethodPost, "/login").Code)
		})
	}
}

// A request cancelled while it waits for its shaped turn is not served.
// In a synctest bubble the limiter's clock, the wait's timer and the
// context's deadline are one fake clock, so the 10 ms deadline always
// comes before the 1 s turn, however slowly the test runs.
func TestCancelledWhileShapedIsNotServed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := limiter(t, core.LeakyBucket{Rate: core.PerSecond(1), Capacity: 5})
		m, err := middleware.New(l, middleware.Options{})
		require.NoError(t, err)
		r := chi.NewRouter()
		calls := 0
		r.With(chilimit.Limit(m)).Get("/", func(http.ResponseWriter, *http.Request) { calls++ })
		get(r, http.MethodGet, "/")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		defer cancel()
		w := httptest.NewRecorder()
		r.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/", nil).WithContext(ctx))
		assert.Equal(t, 1, calls)
	})
}
