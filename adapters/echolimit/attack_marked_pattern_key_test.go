package echolimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// It guards against a narrowing of the methods that was withdrawn: the
// adapters marked "-" the methods a router routes the path by to another
// route, and each review of the marks found a handler they let through
// uncharged; the marks are gone, and this request is charged again.
//
// A limit keyed by the route (keyfunc.Route), 2 an hour, on
// e.Any("/api/*", h) beside POST, PUT and DELETE routes at "/api/a",
// "/api/b", "/api/c": the methods marked "-" by each path made four keys
// of one route, 8 of 8 GETs ran. The key sees the pattern without the
// marks: 2 of 8.
func TestAttackMarkedMethodsDoNotSplitARouteKey(t *testing.T) {
	t.Parallel()
	m, err := middleware.New(fixed(t, 2), middleware.Options{Key: keyfunc.Route})
	require.NoError(t, err)
	e := echo.New()
	e.Use(echolimit.Limit(m))
	e.Any("/api/*", ok)
	e.POST("/api/a", func(echo.Context) error { return nil })
	e.PUT("/api/b", func(echo.Context) error { return nil })
	e.DELETE("/api/c", func(echo.Context) error { return nil })
	var codes []int
	for _, p := range []string{"/api/a", "/api/a", "/api/b", "/api/b", "/api/c", "/api/c", "/api/z", "/api/z"} {
		codes = append(codes, from(e, http.MethodGet, p, "192.0.2.1:1"))
	}
	assert.Equal(t, []int{200, 200, 429, 429, 429, 429, 429, 429}, codes)
}
