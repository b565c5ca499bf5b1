package stacks_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/floodgate-go/floodgate/adapters/ginlimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/stacktest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/gin-gonic/gin"
	"github.com/go-chi/chi/v5"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"
)

// TestBehaviourTable runs floodgate's behaviour table (internal/stacktest)
// through net/http, chi (inline and LimitMux), gin and echo: each must get
// exactly the expected answers, and all of them net/http's answers. The
// per-IP cases run through each router's one-liner (chilimit.PerIP,
// ginlimit.PerIP, echolimit.PerIP) mounted on the whole router.
func TestBehaviourTable(t *testing.T) {
	stacktest.Run(t,
		stacktest.NetHTTP,
		stacktest.Stack{Name: "chi", Serve: serveChi, PerIP: perIPChi},
		stacktest.Stack{Name: "chi (LimitMux)", Serve: serveChiMux},
		stacktest.Stack{Name: "gin", Serve: serveGin, PerIP: perIPGin},
		stacktest.Stack{Name: "echo", Serve: serveEcho, PerIP: perIPEcho},
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
		r.Handle("/account", h)
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
	r.Handle("/account", h)
	return r
}

func serveGin(_ *testing.T, m *middleware.Middleware, h http.HandlerFunc) http.Handler {
	gin.SetMode(gin.TestMode)
	e := gin.New()
	e.Use(ginlimit.Limit(m, e))
	e.GET("/hello", gin.WrapF(h))
	e.GET("/users/:id", gin.WrapF(h))
	e.POST("/login", gin.WrapF(h))
	e.Any("/account", gin.WrapF(h))
	return e
}

func serveEcho(_ *testing.T, m *middleware.Middleware, h http.HandlerFunc) http.Handler {
	e := echo.New()
	e.Use(echolimit.Limit(m))
	e.GET("/hello", echo.WrapHandler(h))
	e.GET("/users/:id", echo.WrapHandler(h))
	e.POST("/login", echo.WrapHandler(h))
	e.Any("/account", echo.WrapHandler(h))
	return e
}

// The one-liners' applications: /hello answers every method.

func perIPChi(t *testing.T, rate string, opts []core.Option, h http.HandlerFunc) http.Handler {
	mw, err := chilimit.PerIP(rate, opts...)
	require.NoError(t, err)
	r := chi.NewRouter()
	r.Use(mw)
	r.Handle("/hello", h)
	r.Get("/users/{id}", h)
	r.Post("/login", h)
	return r
}

func perIPGin(t *testing.T, rate string, opts []core.Option, h http.HandlerFunc) http.Handler {
	mw, err := ginlimit.PerIP(rate, opts...)
	require.NoError(t, err)
	gin.SetMode(gin.TestMode)
	e := gin.New()
	e.Use(mw)
	e.Any("/hello", gin.WrapF(h))
	e.GET("/users/:id", gin.WrapF(h))
	e.POST("/login", gin.WrapF(h))
	return e
}

func perIPEcho(t *testing.T, rate string, opts []core.Option, h http.HandlerFunc) http.Handler {
	mw, err := echolimit.PerIP(rate, opts...)
	require.NoError(t, err)
	e := echo.New()
	e.Use(mw)
	e.Any("/hello", echo.WrapHandler(h))
	e.GET("/users/:id", echo.WrapHandler(h))
	e.POST("/login", echo.WrapHandler(h))
	return e
}
