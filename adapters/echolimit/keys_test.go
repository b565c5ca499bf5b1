package echolimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/floodgate-go/floodgate/internal/stacktest"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/labstack/echo/v4"
)

// auth is an authentication middleware as echo applications write them
// (echo-jwt's convention): it stores the user it verified with c.Set, or
// answers 401.
func auth(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		user, ok := stacktest.Bearer(c.Request())
		if !ok {
			return echo.ErrUnauthorized
		}
		c.Set("user", user)
		return next(c)
	}
}

// The limiter keys on the user the authentication middleware stored with
// c.Set; mounted before it, it finds none and refuses.
func TestKeyFromContextSet(t *testing.T) {
	stacktest.CheckUserKey(t, keyfunc.UserFromContext("user"), func(m *middleware.Middleware, before bool) http.Handler {
		e := echo.New()
		if before {
			e.Use(echolimit.Limit(m), auth)
		} else {
			e.Use(auth, echolimit.Limit(m))
		}
		e.GET("/me", ok)
		return e
	})
}

// The request key functions see: c.Set values, the request's own context,
// its cancellation, and a form parsed for the handler too.
func TestKeyRequest(t *testing.T) {
	stacktest.CheckKeyRequest(t, func(m *middleware.Middleware, h http.HandlerFunc) http.Handler {
		e := echo.New()
		e.Use(func(next echo.HandlerFunc) echo.HandlerFunc {
			return func(c echo.Context) error { c.Set("user", "alice"); return next(c) }
		}, echolimit.Limit(m))
		e.GET("/me", echo.WrapHandler(h))
		e.POST("/login", echo.WrapHandler(h))
		return e
	})
}
