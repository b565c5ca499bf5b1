package ginlimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/ginlimit"
	"github.com/floodgate-go/floodgate/internal/stacktest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/gin-gonic/gin"
)

// Counting only failures, a handler that writes nothing (gin would answer
// 200, unless a middleware outside writes later) or hijacks the connection
// is no success: it stays counted. Before, both were refunded.
func TestAttackCountIfNeverGuesses(t *testing.T) {
	stacktest.CheckCountIfNeverGuesses(t, func(m *middleware.Middleware, h http.HandlerFunc) http.Handler {
		e := gin.New()
		e.POST("/login", ginlimit.Limit(m, e), gin.WrapF(h))
		return e
	})
}
