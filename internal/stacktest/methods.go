package stacktest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The handlers of [CheckMethodsReachingAHandler]'s applications: two
// distinct functions of the router's own kind.
const (
	Login = "login"
	Page  = "page"
)

// Registration is a route an application registers: the handler named
// Handler ([Login] or [Page]) for Methods at Path, or for every method
// when Methods is nil (chi's Handle, gin's and echo's Any).
type Registration struct {
	Handler string
	Methods []string
	Path    string
}

// MethodsApp builds a router's application: regs registered in order, the
// handlers being two distinct functions of the router's kind, each adding
// its runs to hits[its name], limited by m mounted the router's way.
type MethodsApp func(m *middleware.Middleware, regs []Registration, hits map[string]int) http.Handler

// CheckMethodsReachingAHandler checks that every method reaching a
// handler is limited by the route that guards it: a handler registered
// for every method, or for several, limited by the route "POST /login", is
// limited in that route's bucket whatever method reaches it (a PUT, a GET
// with credentials in its query, a CORS preflight in every Preflight
// mode), and never by the default; a method's own route still comes
// first, and a handler registered for one method alone keeps its own
// route (the default, when it has none). With overrides, the router lets
// a handler registered for one method replace, for that method, the
// handler of every method (chi, echo): the others stay limited by the
// route of a method still reaching that handler.
func CheckMethodsReachingAHandler(t *testing.T, app MethodsApp, overrides bool) {
	t.Helper()
	every := []Registration{{Handler: Login, Path: "/login"}}
	t.Run("every method", func(t *testing.T) {
		hits := map[string]int{}
		h := app(Quotas(t, middleware.Options{}, "POST /login", 2), every, hits)
		assert.Equal(t, 200, send(h, "POST", "/login", "192.0.2.1:1"))
		assert.Equal(t, 200, send(h, "PUT", "/login", "192.0.2.1:1"))
		for _, method := range []string{"PATCH", "DELETE", "GET", "HEAD", "OPTIONS", "PUT", "POST"} {
			assert.Equal(t, 429, send(h, method, "/login?username=alice&password=guess", "192.0.2.1:1"), method)
		}
		assert.Equal(t, 2, hits[Login])
		// Another client spends its allowance by other methods: POST is then
		// refused too, in the same bucket.
		assert.Equal(t, 200, send(h, "DELETE", "/login", "192.0.2.2:1"))
		assert.Equal(t, 200, send(h, "GET", "/login?username=alice&password=guess", "192.0.2.2:1"))
		assert.Equal(t, 429, send(h, "POST", "/login", "192.0.2.2:1"))
		// A method the router does not route to it never reaches it.
		assert.NotEqual(t, 200, send(h, "PURGE", "/login", "192.0.2.3:1"))
		assert.Equal(t, 4, hits[Login])
	})
	t.Run("two methods", func(t *testing.T) {
		hits := map[string]int{}
		h := app(Quotas(t, middleware.Options{}, "POST /login", 1), []Registration{{Handler: Login, Methods: []string{"GET", "POST"}, Path: "/login"}}, hits)
		assert.Equal(t, []int{200, 429}, []int{send(h, "POST", "/login", "192.0.2.1:1"), send(h, "GET", "/login?password=guess", "192.0.2.1:1")})
		assert.Equal(t, []int{200, 429}, []int{send(h, "GET", "/login?password=guess", "192.0.2.2:1"), send(h, "POST", "/login", "192.0.2.2:1")})
		assert.NotEqual(t, 200, send(h, "PUT", "/login", "192.0.2.3:1"), "not routed")
		assert.Equal(t, 2, hits[Login])
	})
	t.Run("a handler of its own", func(t *testing.T) {
		hits := map[string]int{}
		h := app(Quotas(t, middleware.Options{}, "POST /login", 1), []Registration{
			{Handler: Page, Methods: []string{"GET"}, Path: "/login"},
			{Handler: Login, Methods: []string{"POST"}, Path: "/login"},
		}, hits)
		assert.Equal(t, []int{200, 429}, []int{send(h, "POST", "/login", "192.0.2.1:1"), send(h, "POST", "/login", "192.0.2.1:1")})
		for range 3 {
			assert.Equal(t, 200, send(h, "GET", "/login", "192.0.2.1:1"), "the login page is not the login")
		}
		assert.Equal(t, map[string]int{Login: 1, Page: 3}, hits)
	})
	t.Run("a method's own route first", func(t *testing.T) {
		h := app(Quotas(t, middleware.Options{}, "POST /login", 1, "GET /login", 3), every, map[string]int{})
		assert.Equal(t, []int{200, 429}, []int{send(h, "POST", "/login", "192.0.2.1:1"), send(h, "PUT", "/login", "192.0.2.1:1")})
		assert.Equal(t, []int{200, 200, 200, 429}, []int{
			send(h, "GET", "/login", "192.0.2.1:1"), send(h, "HEAD", "/login", "192.0.2.1:1"),
			send(h, "GET", "/login", "192.0.2.1:1"), send(h, "GET", "/login", "192.0.2.1:1"),
		})
	})
	for _, mode := range []middleware.Preflight{middleware.PreflightOwnBucket, middleware.PreflightLikeRoute, middleware.PreflightAsOptions} {
		t.Run(fmt.Sprint("preflight/", mode), func(t *testing.T) {
			hits := map[string]int{}
			h := app(Quotas(t, middleware.Options{Preflight: mode}, "POST /login", 2), every, hits)
			pre := func() int {
				return send(h, "OPTIONS", "/login", "192.0.2.1:1", "Origin", "https://example.com", "Access-Control-Request-Method", "POST")
			}
			assert.Equal(t, []int{200, 200, 429, 429}, []int{pre(), send(h, "POST", "/login", "192.0.2.1:1"), pre(), send(h, "POST", "/login", "192.0.2.1:1")})
			assert.Equal(t, 2, hits[Login])
		})
	}
	if !overrides {
		return
	}
	t.Run("every method but one", func(t *testing.T) {
		hits := map[string]int{}
		h := app(Quotas(t, middleware.Options{}, "GET /login", 100, "POST /login", 1), []Registration{
			{Handler: Login, Path: "/login"},
			{Handler: Page, Methods: []string{"GET"}, Path: "/login"},
		}, hits)
		assert.Equal(t, []int{200, 429, 429}, []int{
			send(h, "POST", "/login", "192.0.2.1:1"), send(h, "PUT", "/login", "192.0.2.1:1"), send(h, "DELETE", "/login", "192.0.2.1:1"),
		}, "limited by POST's route, not by GET's, whose handler is another")
		assert.Equal(t, 200, send(h, "GET", "/login", "192.0.2.1:1"))
		assert.Equal(t, map[string]int{Login: 1, Page: 1}, hits)
	})
}

// Quotas returns a middleware limiting each pattern of pq ("pattern", n,
// …) to n an hour, on one fake clock, without a default limit.
func Quotas(t *testing.T, opts middleware.Options, pq ...any) *middleware.Middleware {
	t.Helper()
	clk := coretest.NewClock(t0)
	rt := middleware.NewRoutes(nil)
	for i := 0; i+1 < len(pq); i += 2 {
		p, err := core.Single("route", core.FixedWindow{Quota: int64(pq[i+1].(int)), Window: time.Hour})
		require.NoError(t, err)
		l, err := core.NewLimiter(p, core.WithClock(clk))
		require.NoError(t, err)
		require.NoError(t, rt.Add(pq[i].(string), l))
	}
	m, err := middleware.NewSelect(rt, opts)
	require.NoError(t, err)
	return m
}

// send serves a request of method for target from remote, with the header
// fields of hdr (name, value, …), and returns the status.
func send(h http.Handler, method, target, remote string, hdr ...string) int {
	r := httptest.NewRequest(method, target, nil)
	r.RemoteAddr = remote
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code
}
