package echolimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/floodgate-go/floodgate/internal/stacktest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// methodsApp holds the two handlers of stacktest's applications: distinct
// functions, as echo names handlers.
type methodsApp struct{ hits map[string]int }

func (a methodsApp) login(echo.Context) error { a.hits[stacktest.Login]++; return nil }
func (a methodsApp) page(echo.Context) error  { a.hits[stacktest.Page]++; return nil }

// registrar is what echo's server and groups have in common.
type registrar interface {
	Any(path string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) []*echo.Route
	Match(methods []string, path string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) []*echo.Route
}

// register adds regs to g the echo way, with the route middleware mw: Any
// for every method, Match for several.
func register(g registrar, regs []stacktest.Registration, hits map[string]int, mw ...echo.MiddlewareFunc) {
	a := methodsApp{hits}
	for _, reg := range regs {
		h := a.login
		if reg.Handler == stacktest.Page {
			h = a.page
		}
		if reg.Methods == nil {
			g.Any(reg.Path, h, mw...)
			continue
		}
		g.Match(reg.Methods, reg.Path, h, mw...)
	}
}

// A handler echo serves every method with (Any), or several (Match), is
// limited by the route of a method reaching it ("POST /login") whatever
// method reaches it, however Limit is mounted: with Use, on a group, on
// the route, and with Pre, before echo routes. Before, every method but
// POST reached it on the default limit (none here): PUT, DELETE, a GET with
// credentials in its query, a preflight in a bucket of its own.
func TestAttackMethodsOfAnyMethodHandler(t *testing.T) {
	for name, app := range map[string]stacktest.MethodsApp{
		"Use": func(m *middleware.Middleware, regs []stacktest.Registration, hits map[string]int) http.Handler {
			e := echo.New()
			e.Use(echolimit.Limit(m))
			register(e, regs, hits)
			return e
		},
		"group": func(m *middleware.Middleware, regs []stacktest.Registration, hits map[string]int) http.Handler {
			e := echo.New()
			register(e.Group("", echolimit.Limit(m)), regs, hits)
			return e
		},
		"route": func(m *middleware.Middleware, regs []stacktest.Registration, hits map[string]int) http.Handler {
			e := echo.New()
			register(e, regs, hits, echolimit.Limit(m))
			return e
		},
		"Pre": func(m *middleware.Middleware, regs []stacktest.Registration, hits map[string]int) http.Handler {
			e := echo.New()
			e.Pre(echolimit.Limit(m))
			register(e, regs, hits)
			return e
		},
	} {
		t.Run(name, func(t *testing.T) { stacktest.CheckMethodsReachingAHandler(t, app, true) })
	}
}

// echo answers a method the path has no route for (405, or 204 with Allow
// for OPTIONS) and a path variant (404, if not refused as the route)
// without the route's handler:
// neither reaches the login handler, whether Limit runs before routing
// (Pre) or after (Use).
func TestAttackMethodsEchoRoutesNowhere(t *testing.T) {
	for _, pre := range []bool{false, true} {
		hits := map[string]int{}
		e := echo.New()
		l := echolimit.Limit(stacktest.Quotas(t, middleware.Options{}, "POST /login", 1))
		if pre {
			e.Pre(l)
		} else {
			e.Use(l)
		}
		register(e, []stacktest.Registration{{Handler: stacktest.Login, Methods: []string{"POST"}, Path: "/login"}}, hits)
		for method, want := range map[string]int{"PUT": 405, "GET": 405, "PURGE": 405, "OPTIONS": 204} {
			assert.Equal(t, want, from(e, method, "/login", "192.0.2.1:1"), method)
		}
		// Variants of the route's spelling are counted against it (see
		// middleware.Routes), answered 404 or 429.
		for _, path := range []string{"/login/", "/LOGIN", "//login"} {
			assert.Contains(t, []int{404, 429}, from(e, "POST", path, "192.0.2.1:1"), path)
		}
		assert.Empty(t, hits)
	}
}

// TestAttackAnyHandlerRouteInServeMuxSyntax: a login handler echo serves
// every method with (Any), guarded by a route written in ServeMux's syntax
// ("POST /users/{id}/login" for echo's "/users/:id/login"), is limited by
// that route whatever method reaches it, mounted with e.Use or e.Pre.
// Before, only POST was: the route was matched by the request, and PUT,
// PATCH and DELETE went to the default (none here): 17 of 20 requests
// reached the handler, not 2.
func TestAttackAnyHandlerRouteInServeMuxSyntax(t *testing.T) {
	for _, pre := range []bool{false, true} {
		rt := middleware.NewRoutes(nil)
		require.NoError(t, rt.Add("POST /users/{id}/login", fixed(t, 2)))
		m, err := middleware.NewSelect(rt, middleware.Options{})
		require.NoError(t, err)
		e := echo.New()
		if pre {
			e.Pre(echolimit.Limit(m))
		} else {
			e.Use(echolimit.Limit(m))
		}
		reached := 0
		e.Any("/users/:id/login", func(c echo.Context) error { reached++; return echo.ErrUnauthorized })
		for i := range 20 {
			do(e, []string{"POST", "PUT", "PATCH", "DELETE"}[i%4], "/users/7/login")
		}
		assert.Equal(t, 2, reached, "e.Pre: %v", pre)
	}
}
