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

// TestAttackRglob38cTailCutAroundEcho: echo serves "/users//1/2",
// "/users/./1/2", "/users/.." and, beside its route "/users/me",
// "/users/me/x" by "/users/:id". With the limiter around echo, each went
// to the default or the looser "/users/me": 3 of 3 handler runs past a
// route limit of 1 an hour. Now 1 of 3.
func TestAttackRglob38cTailCutAroundEcho(t *testing.T) {
	for _, path := range []string{"/users//1/2", "/users/./1/2", "/users/..", "/users/me/x", "/users/me/", "/users/me/x/.."} {
		rt := middleware.NewRoutes(limiter(t, core.FixedWindow{Quota: 1000, Window: time.Hour}))
		require.NoError(t, rt.Add("GET /users/:id", limiter(t, core.FixedWindow{Quota: 1, Window: time.Hour})))
		require.NoError(t, rt.Add("GET /users/me", limiter(t, core.FixedWindow{Quota: 1000, Window: time.Hour})))
		m, err := middleware.NewSelect(rt, middleware.Options{})
		require.NoError(t, err)
		hits := 0
		e := echo.New()
		e.GET("/users/:id", func(echo.Context) error { hits++; return nil })
		e.GET("/users/me", func(echo.Context) error { return nil })
		h := m.Handler(e)
		var codes []int
		for range 3 {
			codes = append(codes, do(h, "GET", path).Code)
		}
		assert.Equal(t, []int{200, 429, 429}, codes, path)
		assert.Equal(t, 1, hits, path)
	}
}
