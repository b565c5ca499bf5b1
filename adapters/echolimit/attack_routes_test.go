package echolimit_test

import (
	"testing"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Limit mounted with e.Pre, before echo routes (a mistake the package
// documentation warns of), sees no route template: a route with a
// parameter is still limited, matched by the request's path. Before, every
// request of it came through unlimited.
func TestAttackPreMountStillLimitsParameterRoutes(t *testing.T) {
	rt := middleware.NewRoutes(nil)
	require.NoError(t, rt.Add("GET /users/:id", fixed(t, 1)))
	m, err := middleware.NewSelect(rt, middleware.Options{})
	require.NoError(t, err)
	e := echo.New()
	e.Pre(echolimit.Limit(m))
	e.GET("/users/:id", ok)
	assert.Equal(t, []int{200, 429, 429}, []int{
		from(e, "GET", "/users/5", "192.0.2.1:1"), from(e, "GET", "/users/6", "192.0.2.1:1"), from(e, "GET", "/users/5", "192.0.2.1:1"),
	})
}
