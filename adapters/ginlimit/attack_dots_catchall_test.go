package ginlimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/ginlimit"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gin serves "/admin/./public", "/admin//public" and "/admin/x/../public"
// as they come with its catch-all "/admin/*path" (1 an hour); ServeMux
// would clean them to "/admin/public" (1,000), and Routes, given the
// catch-all's template, counted them there alone: 3 of 3 reached the
// catch-all's handler. Now charged on both routes: 1 of 3.
func TestAttackDotSegmentsPastTheCatchAll(t *testing.T) {
	for _, path := range []string{"/admin/./public", "/admin//public", "/admin/x/../public"} {
		rt := middleware.NewRoutes(nil)
		require.NoError(t, rt.Add("/admin/", fixed(t, 1)))
		require.NoError(t, rt.Add("/admin/public", fixed(t, 1000)))
		m, err := middleware.NewSelect(rt, middleware.Options{})
		require.NoError(t, err)
		hits := 0
		engine := gin.New()
		engine.RedirectTrailingSlash = false
		engine.Use(ginlimit.Limit(m, engine))
		engine.GET("/admin/*path", func(*gin.Context) { hits++ })
		var codes []int
		for range 3 {
			codes = append(codes, from(engine, http.MethodGet, path, "192.0.2.1:1"))
		}
		assert.Equal(t, []int{200, 429, 429}, codes, path)
		assert.Equal(t, 1, hits, path)
	}
}
