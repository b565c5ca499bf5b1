package echolimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// echo serves "POST /api/lo%67in" (routed as it comes) and a PUT to
// "/api/login" with the catch-all of e.Any("/api/*", h), beside
// e.POST("/api/login", …). With the catch-all limited as "/api/" (ServeMux's
// syntax, 1 an hour) and "POST /api/login" at 1000, both were charged on
// the login route alone: 3 of 3 reached the catch-all's handler, before.
// Now they are charged on both routes: 1.
func TestAttackCatchAllInServeMuxSyntaxKeepsItsLimit(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ method, path string }{
		{http.MethodPut, "/api/login"},
		{http.MethodPost, "/api/lo%67in"},
	} {
		rt := middleware.NewRoutes(nil)
		require.NoError(t, rt.Add("/api/", fixed(t, 1)))
		require.NoError(t, rt.Add("POST /api/login", fixed(t, 1000)))
		m, err := middleware.NewSelect(rt, middleware.Options{})
		require.NoError(t, err)
		hits := 0
		e := echo.New()
		e.Use(echolimit.Limit(m))
		e.Any("/api/*", func(echo.Context) error { hits++; return nil })
		e.POST("/api/login", ok)
		var codes []int
		for range 3 {
			codes = append(codes, from(e, c.method, c.path, "192.0.2.1:1"))
		}
		assert.Equal(t, []int{200, 429, 429}, codes, c.method+" "+c.path)
		assert.Equal(t, 1, hits, c.method+" "+c.path)
	}
}
