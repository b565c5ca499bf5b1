package echolimit_test

import (
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/floodgate-go/floodgate/internal/stacktest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Counting only failures, a handler that writes nothing or hijacks the
// connection is no success: it stays counted (before, both were
// refunded), through Limit and through echo.WrapMiddleware(m.Handler),
// where echo writes a returned error after the middleware has returned:
// such a route is throttled, loudly (middleware.ErrNoResponse), where
// before a limit of 3 failures let every one through.
func TestAttackCountIfNeverGuesses(t *testing.T) {
	t.Run("Limit", func(t *testing.T) {
		stacktest.CheckCountIfNeverGuesses(t, func(m *middleware.Middleware, h http.HandlerFunc) http.Handler {
			e := echo.New()
			e.POST("/login", echo.WrapHandler(h), echolimit.Limit(m))
			return e
		})
	})
	t.Run("WrapMiddleware", func(t *testing.T) {
		stacktest.CheckCountIfNeverGuesses(t, func(m *middleware.Middleware, h http.HandlerFunc) http.Handler {
			e := echo.New()
			e.POST("/login", echo.WrapHandler(h), echo.WrapMiddleware(m.Handler))
			return e
		})
	})
}

// The trap itself: a handler failing by returning echo.NewHTTPError(401)
// under echo.WrapMiddleware(m.Handler) with CountIf. Before, each failure
// was refunded as a 200 and the limit of 3 never refused one.
func TestAttackWrapMiddlewareReturnedErrorIsThrottled(t *testing.T) {
	var errs []error
	m, err := middleware.New(fixed(t, 3), middleware.Options{
		CountIf: func(s int) bool { return s >= 400 },
		OnError: func(_ *http.Request, err error) { errs = append(errs, err) },
	})
	require.NoError(t, err)
	e := echo.New()
	e.POST("/login", func(echo.Context) error { return echo.NewHTTPError(http.StatusUnauthorized) }, echo.WrapMiddleware(m.Handler))
	var got []int
	for range 5 {
		got = append(got, from(e, "POST", "/login", "192.0.2.1:1"))
	}
	assert.Equal(t, []int{401, 401, 401, 429, 429}, got)
	require.Len(t, errs, 3)
	for _, err := range errs {
		assert.ErrorIs(t, err, middleware.ErrNoResponse)
	}
}
