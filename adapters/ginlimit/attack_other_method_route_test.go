package ginlimit_test

import (
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/adapters/ginlimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A GET or PUT to "/api/login", which gin serves with e.Any("/api/:x", h)
// beside e.POST("/api/login", login), was charged on "POST /api/login" (1
// an hour) instead of "POST /api/{x}" (3), h's guard: POST's route at the
// path was taken to guard h, which every method reaches. gin routes a
// POST there to login, not to h: one GET, and the client's logins were
// refused (1 of 3 GET and PUTs, 0 of 2 POSTs). Now a route at the path
// counts for the methods gin routes the path by to "/api/:x" alone, and
// h's guard at the template for every method: 3 GET and PUTs, 1 POST of
// 2, then the guard spent for "/api/other".
func TestAttackOtherMethodsRouteUnderAParameterNotCharged(t *testing.T) {
	t.Parallel()
	rt := middleware.NewRoutes(nil)
	require.NoError(t, rt.Add("POST /api/{x}", limiter(t, core.FixedWindow{Quota: 3, Window: time.Hour})))
	require.NoError(t, rt.Add("POST /api/login", limiter(t, core.FixedWindow{Quota: 1, Window: time.Hour})))
	m, err := middleware.NewSelect(rt, middleware.Options{})
	require.NoError(t, err)
	e := gin.New()
	e.Use(ginlimit.Limit(m, e))
	e.Any("/api/:x", ok)
	e.POST("/api/login", func(*gin.Context) {})
	var got []int
	for _, method := range []string{"GET", "GET", "PUT", "POST", "POST"} {
		got = append(got, do(e, method, "/api/login", "192.0.2.1:1").Code)
	}
	assert.Equal(t, []int{200, 200, 200, 200, 429}, got)
	assert.Equal(t, 429, do(e, "GET", "/api/other", "192.0.2.1:1").Code)
}
