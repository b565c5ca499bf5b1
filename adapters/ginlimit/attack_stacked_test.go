package ginlimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/ginlimit"
	"github.com/floodgate-go/floodgate/internal/stacktest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/gin-gonic/gin"
)

// A global limit (e.Use) around a route's: the route's refusal of a
// request the global limit gave its last unit waits for the global
// limit's next admission (87 s), not its reset (864 s), as the adapter
// passes the admission on in c.Request.
func TestAttackStackedDenialWaitsForTheOuterNextAdmission(t *testing.T) {
	t.Parallel()
	stacktest.CheckStackedWaitsForNextAdmission(t, func(outer, inner *middleware.Middleware, h http.HandlerFunc) http.Handler {
		e := gin.New()
		e.Use(ginlimit.Limit(outer, e))
		e.GET("/items", ginlimit.Limit(inner, e), gin.WrapF(h))
		return e
	})
}
