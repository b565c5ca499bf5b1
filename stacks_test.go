package floodgate_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/middleware"
)

// stack serves the test application through one router: the routes
// GET /hello, GET /users/{id} and POST /login (in the router's own template
// syntax), each answering with handler, limited by m with the route
// template passed the router's way.
type stack struct {
	name  string
	serve func(t *testing.T, m *middleware.Middleware, handler http.HandlerFunc) http.Handler
}

// stacks are the routers every behaviour case runs through; the results
// must be identical.
var stacks = []stack{
	{"net/http", serveNetHTTP},
}

func serveNetHTTP(_ *testing.T, m *middleware.Middleware, h http.HandlerFunc) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /hello", h)
	mux.Handle("GET /users/{id}", h)
	mux.Handle("POST /login", h)
	return m.Handler(mux)
}

// routePatterns are the per-route patterns of the application in every
// router's syntax, so one Routes serves all stacks.
var routePatterns = map[string][]string{
	"hello": {"GET /hello"},
	"users": {"GET /users/{id}", "GET /users/:id"},
	"login": {"POST /login"},
}
