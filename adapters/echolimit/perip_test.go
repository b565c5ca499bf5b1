package echolimit_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/echolimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The one-liner on the server counts every request of a client IP: HEAD of
// a GET route and requests echo answers 404 or 405 included. (The
// behaviour table in adapters/stacks checks its answers against net/http's,
// preflights and IPv6 included.)
func TestPerIPCountsEveryRequest(t *testing.T) {
	e := echo.New()
	e.Use(echolimit.MustPerIP("3/hour"))
	e.GET("/hello", ok)
	assert.Equal(t, http.StatusOK, do(e, "GET", "/hello").Code)
	assert.Equal(t, http.StatusMethodNotAllowed, do(e, "HEAD", "/hello").Code)
	assert.Equal(t, http.StatusNotFound, do(e, "GET", "/nowhere").Code)
	w := do(e, "HEAD", "/hello")
	assert.Equal(t, http.StatusTooManyRequests, w.Code)
	assert.Equal(t, "application/problem+json", w.Header().Get("Content-Type"))
	assert.Equal(t, `"per-ip";q=3;w=3600`, w.Header().Get("RateLimit-Policy"))
}

// An invalid rate is PerIP's error, naming the column; MustPerIP panics
// with it when the server is built.
func TestPerIPInvalidRate(t *testing.T) {
	mw, err := echolimit.PerIP("100/mni")
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	assert.Nil(t, mw)
	var pe *core.ParseError
	require.True(t, errors.As(err, &pe))
	assert.Equal(t, 5, pe.Column)
	assert.PanicsWithError(t, err.Error(), func() { echolimit.MustPerIP("100/mni") })
}
