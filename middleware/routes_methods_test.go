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
