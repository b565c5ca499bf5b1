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

// A route added after the first request at a path the route table had
// read (e.PUT("/login", login) beside e.POST("/login", login), a GET
// "/login" asked first) was not seen: the PUT reached the login handler
// unlimited, 3 of 3, where "POST /login" (1 an hour) guards it. Now the
// table is read again for a method gin routes at a path it does not list:
// 1 of 3.
func TestAttackMethodAddedAfterTheFirstRequestIsLimited(t *testing.T) {
	t.Parallel()
	rt := middleware.NewRoutes(nil)
	require.NoError(t, rt.Add("POST /login", limiter(t, core.FixedWindow{Quota: 1, Window: time.Hour})))
	m, err := middleware.NewSelect(rt, middleware.Options{})
	require.NoError(t, err)
	e := gin.New()
	e.Use(ginlimit.Limit(m, e))
	e.GET("/login", ok)
	assert.Equal(t, http.StatusOK, do(e, http.MethodGet, "/login", "192.0.2.1:1").Code)
	hits := 0
	login := func(*gin.Context) { hits++ }
	e.POST("/login", login)
	e.PUT("/login", login)
	var got []int
	for range 3 {
		got = append(got, do(e, http.MethodPut, "/login", "192.0.2.1:1").Code)
	}
	assert.Equal(t, []int{200, 429, 429}, got)
	assert.Equal(t, 1, hits)
}
