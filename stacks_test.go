package floodgate_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/floodgate-go/floodgate/adapters/ginlimit"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/gin-gonic/gin"
	"github.com/go-chi/chi/v5"
	"github.com/labstack/echo/v4"
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
	{"chi", serveChi},
	{"chi (LimitMux)", serveChiMux},
	{"gin", serveGin},
	{"echo", serveEcho},
}

func serveNetHTTP(_ *testing.T, m *middleware.Middleware, h http.HandlerFunc) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /hello", h)
	mux.Handle("GET /users/{id}", h)
	mux.Handle("POST /login", h)
	return m.Handler(mux)
}

// serveChi mounts chilimit.Limit as inline middleware of a group, where
// chi knows the route pattern.
func serveChi(_ *testing.T, m *middleware.Middleware, h http.HandlerFunc) http.Handler {
	r := chi.NewRouter()
	r.Group(func(r chi.Router) {
		r.Use(chilimit.Limit(m))
		r.Get("/hello", h)
		r.Get("/users/{id}", h)
		r.Post("/login", h)
	})
	return r
}

// serveChiMux mounts chilimit.LimitMux on the root router.
func serveChiMux(_ *testing.T, m *middleware.Middleware, h http.HandlerFunc) http.Handler {
	r := chi.NewRouter()
	r.Use(chilimit.LimitMux(m, r))
	r.Get("/hello", h)
	r.Get("/users/{id}", h)
	r.Post("/login", h)
	return r
}

func serveGin(_ *testing.T, m *middleware.Middleware, h http.HandlerFunc) http.Handler {
	gin.SetMode(gin.TestMode)
	e := gin.New()
	e.Use(ginlimit.Limit(m))
	e.GET("/hello", gin.WrapF(h))
	e.GET("/users/:id", gin.WrapF(h))
	e.POST("/login", gin.WrapF(h))
	return e
}

func serveEcho(_ *testing.T, m *middleware.Middleware, h http.HandlerFunc) http.Handler {
	e := echo.New()
	e.Use(echolimit.Limit(m))
	e.GET("/hello", echo.WrapHandler(h))
	e.GET("/users/:id", echo.WrapHandler(h))
	e.POST("/login", echo.WrapHandler(h))
	return e
}

// routePatterns are the per-route patterns of the application in every
// router's syntax, so one Routes serves all stacks.
var routePatterns = map[string][]string{
	"hello": {"GET /hello"},
	"users": {"GET /users/{id}", "GET /users/:id"},
	"login": {"POST /login"},
}
