package ginlimit_test

import (
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackRglob38cDotSegmentParamAroundGin: gin serves "/users/../x"
// by "/users/:id/x" (id ".."), "/users/." by "/users/:id", and, routing
// the decoded path, "/users/a%2Fb/x" by "/users/:id/:y/x". With the
// limiter around gin, ServeMux cleaned the first into "/x" and "/users/",
// read the last as one segment "a%2Fb", and charged the default or "GET
// /x": 3 of 3 handler runs past a route limit of 1 an hour. Now 1 of 3.
func TestAttackRglob38cDotSegmentParamAroundGin(t *testing.T) {
	for _, c := range []struct{ route, path string }{
		{"/users/:id/x", "/users/../x"},
		{"/users/:id/x", "/users/./x"},
		{"/users/:id", "/users/."},
		{"/users/:id", "/users/.."},
		{"/users/:id/:y/x", "/users/a%2Fb/x"},
		{"/users/:id/:y/x", "/users/a%2F../x"},
	} {
		rt := middleware.NewRoutes(limiter(t, core.FixedWindow{Quota: 1000, Window: time.Hour}))
		require.NoError(t, rt.Add("GET "+c.route, limiter(t, core.FixedWindow{Quota: 1, Window: time.Hour})))
		require.NoError(t, rt.Add("GET /x", limiter(t, core.FixedWindow{Quota: 1000, Window: time.Hour})))
		m, err := middleware.NewSelect(rt, middleware.Options{})
		require.NoError(t, err)
		hits := 0
		e := gin.New()
		e.GET(c.route, func(*gin.Context) { hits++ })
		e.GET("/x", func(*gin.Context) {})
		h := m.Handler(e)
		var codes []int
		for range 3 {
			codes = append(codes, do(h, "GET", c.path, "192.0.2.1:1").Code)
		}
		assert.Equal(t, []int{200, 429, 429}, codes, c.path)
		assert.Equal(t, 1, hits, c.path)
	}
}
