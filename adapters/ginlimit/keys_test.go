package ginlimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/ginlimit"
	"github.com/floodgate-go/floodgate/internal/stacktest"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/gin-gonic/gin"
)

// auth is an authentication middleware as gin applications write them: it
// stores the user it verified with c.Set, or aborts with 401.
func auth(c *gin.Context) {
	user, ok := stacktest.Bearer(c.Request)
	if !ok {
		c.AbortWithStatus(http.StatusUnauthorized)
		return
	}
	c.Set("user", user)
}

// The limiter keys on the user the authentication middleware stored with
// c.Set; mounted before it, it finds none and refuses.
func TestKeyFromContextSet(t *testing.T) {
	stacktest.CheckUserKey(t, keyfunc.UserFromContext("user"), func(m *middleware.Middleware, before bool) http.Handler {
		e := gin.New()
		if before {
			e.Use(ginlimit.Limit(m, e), auth)
		} else {
			e.Use(auth, ginlimit.Limit(m, e))
		}
		e.GET("/me", ok)
		return e
	})
}

// The request key functions see: c.Set values, the request's own context,
// its cancellation, and a form parsed for the handler too.
func TestKeyRequest(t *testing.T) {
	stacktest.CheckKeyRequest(t, func(m *middleware.Middleware, h http.HandlerFunc) http.Handler {
		e := gin.New()
		e.Use(func(c *gin.Context) { c.Set("user", "alice") }, ginlimit.Limit(m, e))
		e.GET("/me", gin.WrapF(h))
		e.POST("/login", gin.WrapF(h))
		return e
	})
}
