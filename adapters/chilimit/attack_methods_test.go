package chilimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/internal/stacktest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
	chimw "github.com/go-chi/chi/v5/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// methodsApp holds the two handlers of stacktest's applications: distinct
// functions, as chi compares handlers.
type methodsApp struct{ hits map[string]int }

func (a methodsApp) login(http.ResponseWriter, *http.Request) { a.hits[stacktest.Login]++ }
func (a methodsApp) page(http.ResponseWriter, *http.Request)  { a.hits[stacktest.Page]++ }

// register adds regs to r the chi way: Handle for every method, Method for
// each of several.
func register(r chi.Router, regs []stacktest.Registration, hits map[string]int) {
	a := methodsApp{hits}
	for _, reg := range regs {
		h := http.HandlerFunc(a.login)
		if reg.Handler == stacktest.Page {
			h = a.page
		}
		if reg.Methods == nil {
			r.Handle(reg.Path, h)
			continue
		}
		for _, m := range reg.Methods {
			r.Method(m, reg.Path, h)
		}
	}
}

// A handler chi serves every method with (Handle), or several (Method for
// each), is limited by the route of a method reaching it ("POST /login")
// whatever method reaches it, however the limiter is mounted: inline, in a
// group, with LimitMux, in a router mounted under the root. Before, every
// method but POST reached it on the default limit (none here): PUT, DELETE,
// a GET with credentials in its query, a preflight in a bucket of its own.
func TestAttackMethodsOfAnyMethodHandler(t *testing.T) {
	for name, app := range map[string]stacktest.MethodsApp{
		"inline": func(m *middleware.Middleware, regs []stacktest.Registration, hits map[string]int) http.Handler {
			r := chi.NewRouter()
			register(r.With(chilimit.Limit(m)), regs, hits)
			return r
		},
		"group": func(m *middleware.Middleware, regs []stacktest.Registration, hits map[string]int) http.Handler {
			r := chi.NewRouter()
			r.Group(func(g chi.Router) {
				g.Use(chilimit.Limit(m))
				register(g, regs, hits)
			})
			return r
		},
		"LimitMux": func(m *middleware.Middleware, regs []stacktest.Registration, hits map[string]int) http.Handler {
			r := chi.NewRouter()
			r.Use(chilimit.LimitMux(m, r))
			register(r, regs, hits)
			return r
		},
		"mounted router, inline": func(m *middleware.Middleware, regs []stacktest.Registration, hits map[string]int) http.Handler {
			sub := chi.NewRouter()
			register(sub.With(chilimit.Limit(m)), regs, hits)
			r := chi.NewRouter()
			r.Mount("/", sub)
			return r
		},
		"mounted router, LimitMux": func(m *middleware.Middleware, regs []stacktest.Registration, hits map[string]int) http.Handler {
			sub := chi.NewRouter()
			register(sub, regs, hits)
			r := chi.NewRouter()
			r.Use(chilimit.LimitMux(m, r))
			r.Mount("/", sub)
			return r
		},
	} {
		t.Run(name, func(t *testing.T) { stacktest.CheckMethodsReachingAHandler(t, app, true) })
	}
}

// A handler mounted with Mount serves every method below its prefix: a
// route of one method on the prefix ("POST /api/*") limits them all.
// chi answers a method it does not know (405) without a handler; a path
// variant reaches the handler only through path-rewriting middleware,
// limited then in the route's bucket.
func TestAttackMethodsOfAMountedHandler(t *testing.T) {
	hits := 0
	m := stacktest.Quotas(t, middleware.Options{}, "POST /api/*", 1)
	r := chi.NewRouter()
	r.Use(chilimit.LimitMux(m, r), chimw.StripSlashes)
	r.Mount("/api", http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits++ }))
	assert.Equal(t, []int{200, 429, 429, 405}, []int{
		from(r, "POST", "/api/login", "192.0.2.1:1"), from(r, "PUT", "/api/login/", "192.0.2.1:1"),
		from(r, "GET", "/api/x?password=guess", "192.0.2.1:1"), from(r, "PURGE", "/api/login", "192.0.2.1:1"),
	})
	assert.Equal(t, 1, hits)
}

// TestAttackHandleRouteWithAnotherParameterName: a login handler chi
// serves every method with (Handle), guarded by a route whose parameter is
// named otherwise than the router's ("POST /users/{userID}/login" for
// "/users/{id}/login"), is limited by that route whatever method reaches
// it, however the limiter is mounted. Before, only POST was: the route was
// matched by the request, and PUT, PATCH and DELETE went to the default
// (none here): 17 of 20 requests reached the handler, not 2.
func TestAttackHandleRouteWithAnotherParameterName(t *testing.T) {
	for name, mount := range map[string]func(m *middleware.Middleware, h http.HandlerFunc) http.Handler{
		"inline": func(m *middleware.Middleware, h http.HandlerFunc) http.Handler {
			r := chi.NewRouter()
			r.With(chilimit.Limit(m)).Handle("/users/{id}/login", h)
			return r
		},
		"LimitMux": func(m *middleware.Middleware, h http.HandlerFunc) http.Handler {
			r := chi.NewRouter()
			r.Use(chilimit.LimitMux(m, r))
			r.Handle("/users/{id}/login", h)
			return r
		},
	} {
		rt := middleware.NewRoutes(nil)
		require.NoError(t, rt.Add("POST /users/{userID}/login", fixed(t, 2)))
		m, err := middleware.NewSelect(rt, middleware.Options{})
		require.NoError(t, err)
		reached := 0
		h := mount(m, func(w http.ResponseWriter, _ *http.Request) { reached++; w.WriteHeader(http.StatusUnauthorized) })
		for i := range 20 {
			get(h, []string{"POST", "PUT", "PATCH", "DELETE"}[i%4], "/users/7/login")
		}
		assert.Equal(t, 2, reached, name)
	}
}
