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

// It guards against a narrowing of the methods that was withdrawn: the
// adapters marked "-" the methods a router routes the path by to another
// route, and each review of the marks found a handler they let through
// uncharged; the marks are gone, and this request is charged again.
//
// TestAttackNarrowedByTheRawPath: an engine with UseRawPath routes
// "/api/lo%67in" as it comes, by GET and by POST to h (e.Any("/api/:x",
// h)), not to e.POST("/api/login", …), and a POST there is charged on
// "POST /api/login" (1), which then guards h. The methods were narrowed
// by the decoded path, "/api/login": POST was marked "-" and the GETs
// reached h past that route (3 of 3; 1 of 3 before the marks,
// a776f9a~1).
func TestAttackNarrowedByTheRawPath(t *testing.T) {
	t.Parallel()
	rt := middleware.NewRoutes(nil)
	require.NoError(t, rt.Add("POST /api/login", limiter(t, core.FixedWindow{Quota: 1, Window: time.Hour})))
	m, err := middleware.NewSelect(rt, middleware.Options{})
	require.NoError(t, err)
	e := gin.New()
	e.UseRawPath = true
	e.Use(ginlimit.Limit(m, e))
	hits := 0
	e.Any("/api/:x", func(*gin.Context) { hits++ })
	e.POST("/api/login", func(*gin.Context) {})
	var got []int
	for _, method := range []string{"GET", "GET", "GET", "POST"} {
		got = append(got, do(e, method, "/api/lo%67in", "192.0.2.1:1").Code)
	}
	assert.Equal(t, []int{200, 429, 429, 429}, got)
	assert.Equal(t, 1, hits)
}
