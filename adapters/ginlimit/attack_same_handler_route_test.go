package ginlimit_test

import (
	"testing"

	"github.com/floodgate-go/floodgate/adapters/ginlimit"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// It guards against a narrowing of the methods that was withdrawn: the
// adapters marked "-" the methods a router routes the path by to another
// route, and each review of the marks found a handler they let through
// uncharged; the marks are gone, and this request is charged again.
//
// ok serves e.Any("/api/:x", ok) and e.POST("/api/login", ok), "POST
// /api/login" at 1 an hour. A GET or PUT to "/api/login", which gin
// routes to the parameter, reaches ok as surely as a POST does, yet it
// was not charged on "POST /api/login": gin takes the POST route first
// there, and POST was marked as guarding another handler, though the
// handler is ok: 3 of 3 GETs and PUTs ran. A route of the handler the
// request reaches now guards it: 1 request of the 5.
func TestAttackSameHandlerAtAnotherMethodsRouteIsCharged(t *testing.T) {
	t.Parallel()
	rt := middleware.NewRoutes(nil)
	require.NoError(t, rt.Add("POST /api/login", fixed(t, 1)))
	m, err := middleware.NewSelect(rt, middleware.Options{})
	require.NoError(t, err)
	e := gin.New()
	e.Use(ginlimit.Limit(m, e))
	e.Any("/api/:x", ok)
	e.POST("/api/login", ok)
	var got []int
	for _, method := range []string{"GET", "GET", "PUT", "POST", "POST"} {
		got = append(got, do(e, method, "/api/login?user=a&pass=b", "192.0.2.1:1").Code)
	}
	assert.Equal(t, []int{200, 429, 429, 429, 429}, got)
}
