package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
)

// An adapter names the methods that reach the handler a request reaches,
// with its template, in r.Pattern ("PUT,POST,DELETE /login"): a request of
// a method without a route of its own is limited by the first route added
// at the template for one of those methods, never by the default, and
// never by the route of a method whose handler is another (GET's here).
// Before, it got the default limit. A list that does not name the
// request's method or the template is not the request's, and is ignored.
func TestRoutesOfMethodsSharingAHandler(t *testing.T) {
	m := quotaRoutes(t, true, quota{"GET /login", 50}, quota{"POST /login", 1})
	at := func(method, pattern, template string) int {
		r := httptest.NewRequest(method, "/login", nil)
		r.RemoteAddr = "192.0.2.1:1"
		r.Pattern = pattern
		w := httptest.NewRecorder()
		if _, ok := m.Begin(w, r, template); !ok {
			return w.Code
		}
		return http.StatusOK
	}
	shared := "PUT,POST,DELETE,HEAD /login"
	assert.Equal(t, 200, at("POST", shared, "/login"))
	assert.Equal(t, 429, at("PUT", shared, "/login"))
	assert.Equal(t, 429, at("delete", shared, "/login"), "methods are matched without regard to case")
	assert.Equal(t, 200, at("GET", "GET,POST,DELETE /login", "/login"), "a method's own route first")
	assert.Equal(t, 200, at("HEAD", shared, "/login"), "HEAD is limited like GET")
	for name, c := range map[string][2]string{
		"another method's handler": {"PUT", "POST,DELETE /login"},
		"another template":         {"PUT", "PUT,POST /login/"},
		"no template":              {"PUT", "PUT,POST"},
		"one method":               {"PUT", "PUT /login"},
		"a ServeMux pattern":       {"PUT", "/login"},
	} {
		assert.Equal(t, 200, at(c[0], c[1], "/login"), name)
	}
	assert.Equal(t, 200, at("PUT", shared, ""), "without a template, r.Pattern is a ServeMux pattern")
}

// TestAttackSharedHandlerRouteInAnotherSyntax: a route written in another
// syntax than the adapter's template ("POST /users/{id}/login" for gin's
// and echo's "/users/:id/login", or chi's with another parameter name),
// which the template does not name, guards every method r.Pattern names as
// reaching the handler, as a route written as the template does: the first
// added that ServeMux matches the path to with one of them. Before, only
// the route's own method was limited by it (matched by the request): a
// PUT, a PATCH, a DELETE got the default (100 an hour here, not 1).
func TestAttackSharedHandlerRouteInAnotherSyntax(t *testing.T) {
	m := quotaRoutes(t, true, quota{"GET /users/{id}/login", 50}, quota{"POST /users/{id}/login", 1}, quota{"PUT /users/{id}/other", 50})
	at := func(method, pattern string) int {
		r := httptest.NewRequest(method, "/users/7/login", nil)
		r.RemoteAddr = "192.0.2.1:1"
		r.Pattern = pattern
		w := httptest.NewRecorder()
		if _, ok := m.Begin(w, r, "/users/:id/login"); !ok {
			return w.Code
		}
		return http.StatusOK
	}
	shared := "DELETE,PATCH,POST,PUT /users/:id/login"
	assert.Equal(t, 200, at("POST", shared))
	for _, method := range []string{"PUT", "patch", "DELETE"} {
		assert.Equal(t, 429, at(method, shared), method)
	}
	assert.Equal(t, 200, at("GET", "GET,PUT /users/:id/login"), "a method's own route first")
	assert.Equal(t, 200, at("PUT", "GET,PUT /users/:id/login"), "the first route added for a listed method")
	for name, c := range map[string][2]string{
		"another method's handler": {"PUT", "DELETE,POST /users/:id/login"},
		"another template":         {"PUT", "POST,PUT /users/:id/login/"},
		"one method":               {"PUT", "PUT /users/:id/login"},
	} {
		assert.Equal(t, 200, at(c[0], c[1]), name)
	}
}
