package ginlimit_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/adapters/ginlimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gin routes the decoded path: "/admin/%2E%2E/healthz" reaches the
// catch-all "/admin/*path" (its path "/../healthz"). Limited by a route
// written in ServeMux's syntax ("/admin/"), the request is counted there,
// not on the route "/healthz" its decoded path names once cleaned, which
// gin does not serve it with. Before, every such request was counted on
// "/healthz".
func TestAttackEncodedDotsDoNotLeaveTheCatchAll(t *testing.T) {
	rt := middleware.NewRoutes(nil)
	require.NoError(t, rt.Add("/admin/", limiter(t, core.FixedWindow{Quota: 1, Window: time.Hour})))
	require.NoError(t, rt.Add("/healthz", limiter(t, core.FixedWindow{Quota: 1000, Window: time.Hour})))
	m, err := middleware.NewSelect(rt, middleware.Options{})
	require.NoError(t, err)
	hits := 0
	engine := gin.New()
	engine.Use(ginlimit.Limit(m, engine))
	engine.GET("/admin/*path", func(c *gin.Context) { hits++ })
	engine.GET("/healthz", ok)
	var codes []int
	for range 3 {
		codes = append(codes, do(engine, http.MethodGet, "/admin/%2E%2E/healthz", "192.0.2.1:1").Code)
	}
	assert.Equal(t, []int{200, 429, 429}, codes)
	assert.Equal(t, 1, hits)
}
