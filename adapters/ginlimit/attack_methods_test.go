package ginlimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/ginlimit"
	"github.com/floodgate-go/floodgate/internal/stacktest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// methodsApp holds the two handlers of stacktest's applications: distinct
// functions, as gin names handlers.
type methodsApp struct{ hits map[string]int }

func (a methodsApp) login(*gin.Context) { a.hits[stacktest.Login]++ }
func (a methodsApp) page(*gin.Context)  { a.hits[stacktest.Page]++ }

// register adds regs to g the gin way, each handler after the handlers of
// before: Any for every method, Match for several.
func register(g gin.IRoutes, regs []stacktest.Registration, hits map[string]int, before ...gin.HandlerFunc) {
	a := methodsApp{hits}
	for _, reg := range regs {
		h := a.login
		if reg.Handler == stacktest.Page {
			h = a.page
		}
		chain := append(append([]gin.HandlerFunc{}, before...), h)
		if reg.Methods == nil {
			g.Any(reg.Path, chain...)
			continue
		}
		g.Match(reg.Methods, reg.Path, chain...)
	}
}

// A handler gin serves every method with (Any), or several (Match), is
// limited by the route of a method reaching it ("POST /login") whatever
// method reaches it, however Limit is mounted: on the engine, on a group,
// on the route. Before, every method but POST reached it on the default
// limit (none here): PUT, DELETE, a GET with credentials in its query, a
// preflight in a bucket of its own.
func TestAttackMethodsOfAnyMethodHandler(t *testing.T) {
	for name, app := range map[string]stacktest.MethodsApp{
		"engine": func(m *middleware.Middleware, regs []stacktest.Registration, hits map[string]int) http.Handler {
			e := gin.New()
			e.Use(ginlimit.Limit(m, e))
			register(e, regs, hits)
			return e
		},
		"group": func(m *middleware.Middleware, regs []stacktest.Registration, hits map[string]int) http.Handler {
			e := gin.New()
			register(e.Group("/", ginlimit.Limit(m, e)), regs, hits)
			return e
		},
		"route": func(m *middleware.Middleware, regs []stacktest.Registration, hits map[string]int) http.Handler {
			e := gin.New()
			register(e, regs, hits, ginlimit.Limit(m, e))
			return e
		},
	} {
		t.Run(name, func(t *testing.T) { stacktest.CheckMethodsReachingAHandler(t, app, false) })
	}
}

// gin answers a method no route of the path has (404, or 405 with
// HandleMethodNotAllowed) and a path variant (a redirect to the route's
// spelling) without running any handler of the
// route: neither reaches the login handler.
func TestAttackMethodsGinRoutesNowhere(t *testing.T) {
	for _, notAllowed := range []bool{false, true} {
		hits := map[string]int{}
		e := gin.New()
		e.HandleMethodNotAllowed = notAllowed
		e.RedirectFixedPath = true
		e.Use(ginlimit.Limit(stacktest.Quotas(t, middleware.Options{}, "POST /login", 1), e))
		register(e, []stacktest.Registration{{Handler: stacktest.Login, Methods: []string{"POST"}, Path: "/login"}}, hits)
		want := map[bool]int{false: 404, true: 405}[notAllowed]
		for _, method := range []string{"PUT", "GET", "PURGE", "post"} {
			assert.Equal(t, want, from(e, method, "/login", "192.0.2.1:1"), method)
		}
		assert.Equal(t, 307, from(e, "POST", "/login/", "192.0.2.1:1"))
		assert.Equal(t, 307, from(e, "POST", "/LOGIN", "192.0.2.1:1"))
		assert.Empty(t, hits)
	}
}

// TestAttackAnyHandlerRouteInServeMuxSyntax: a login handler gin serves
// every method with (Any), guarded by a route written in ServeMux's syntax
// ("POST /users/{id}/login" for gin's "/users/:id/login"), is limited by
// that route whatever method reaches it. Before, only POST was: the route
// was matched by the request, and PUT, PATCH and DELETE went to the
// default (none here): 17 of 20 requests reached the handler, not 2.
func TestAttackAnyHandlerRouteInServeMuxSyntax(t *testing.T) {
	rt := middleware.NewRoutes(nil)
	require.NoError(t, rt.Add("POST /users/{id}/login", fixed(t, 2)))
	m, err := middleware.NewSelect(rt, middleware.Options{})
	require.NoError(t, err)
	e := gin.New()
	e.Use(ginlimit.Limit(m, e))
	reached := 0
	e.Any("/users/:id/login", func(c *gin.Context) { reached++; c.Status(http.StatusUnauthorized) })
	for i := range 20 {
		do(e, []string{"POST", "PUT", "PATCH", "DELETE"}[i%4], "/users/7/login", "192.0.2.1:1")
	}
	assert.Equal(t, 2, reached)
}
