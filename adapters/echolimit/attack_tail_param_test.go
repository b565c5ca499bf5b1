package echolimit_test

import (
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackTailParamAroundEcho: echo serves "/users/1/2" by
// "/users/:id" and "/login/google/x" by "/login/:provider" (its last
// parameter takes the rest of a path no route continues). With the
// limiter around echo, each went to the default: 3 of 3 handler runs past
// a route limit of 1 an hour. Now 1 of 3; a deeper route of echo's own
// keeps its requests.
func TestAttackTailParamAroundEcho(t *testing.T) {
	for _, c := range []struct{ method, route, path string }{
		{"GET", "/users/:id", "/users/1/2"},
		{"POST", "/login/:provider", "/login/google/x"},
	} {
		rt := middleware.NewRoutes(limiter(t, core.FixedWindow{Quota: 1000, Window: time.Hour}))
		require.NoError(t, rt.Add(c.method+" "+c.route, limiter(t, core.FixedWindow{Quota: 1, Window: time.Hour})))
		m, err := middleware.NewSelect(rt, middleware.Options{})
		require.NoError(t, err)
		hits := 0
		e := echo.New()
		e.Add(c.method, c.route, func(echo.Context) error { hits++; return nil })
		h := m.Handler(e)
		var codes []int
		for range 3 {
			codes = append(codes, do(h, c.method, c.path).Code)
		}
		assert.Equal(t, []int{200, 429, 429}, codes, c.path)
		assert.Equal(t, 1, hits, c.path)
	}
}
