package stacks_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/floodgate-go/floodgate/adapters/ginlimit"
	"github.com/floodgate-go/floodgate/internal/stacktest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/gin-gonic/gin"
	"github.com/go-chi/chi/v5"
	"github.com/labstack/echo/v4"
)

// TestBehaviourTable runs floodgate's behaviour table (internal/stacktest)
// through net/http, chi (inline and LimitMux), gin and echo: each must get
// exactly the expected answers, and all of them net/http's answers.
func TestBehaviourTable(t *testing.T) {
	stacktest.Run(t,
		stacktest.NetHTTP,
		stacktest.Stack{Name: "chi", Serve: serveChi},
		stacktest.Stack{Name: "chi (LimitMux)", Serve: serveChiMux},
		stacktest.Stack{Name: "gin", Serve: serveGin},
		stacktest.Stack{Name: "echo", Serve: serveEcho},
	)
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
