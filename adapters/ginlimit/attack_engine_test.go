package ginlimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/ginlimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Limit given another engine than the one serving its requests (a
// program's second engine, one Limit mounted on two) cannot tell which
// methods reach a handler: it refuses the requests of a route that engine
// does not know, 500, rather than limit a handler of every method by the
// default limit. Before, with "POST /login" limited to 2 an hour and no
// default, 6 PUTs to the login handler of e.Any("/login") all passed.
func TestAttackLimitGivenAnotherEngineFailsClosed(t *testing.T) {
	rt := middleware.NewRoutes(nil)
	require.NoError(t, rt.Add("POST /login", limiter(t, core.GCRA{Rate: core.PerHour(2), Burst: 2})))
	m, err := middleware.NewSelect(rt, middleware.Options{})
	require.NoError(t, err)
	other := gin.New()
	other.GET("/health", ok)
	e := gin.New()
	e.Use(ginlimit.Limit(m, other))
	e.Any("/login", ok)
	for i := range 6 {
		got := do(e, http.MethodPut, "/login", "192.0.2.1:1").Code
		assert.Equal(t, http.StatusInternalServerError, got, "PUT %d", i)
	}
	// Given its own engine, the same Limit limits the PUTs by the route.
	right := gin.New()
	right.Use(ginlimit.Limit(m, right))
	right.Any("/login", ok)
	var got []int
	for range 4 {
		got = append(got, do(right, http.MethodPut, "/login", "192.0.2.1:1").Code)
	}
	assert.Equal(t, []int{200, 200, 429, 429}, got)
}
