package middleware_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// PerIP limits each client IP with every header and a problem+json 429;
// another IP has its own bucket; time passing refills it.
func TestPerIP(t *testing.T) {
	clk := newClock()
	h := middleware.MustPerIP("2/min", core.WithClock(clk)).Handler(okHandler)
	a, b := "198.51.100.7:1234", "198.51.100.8:1234"
	assert.Equal(t, http.StatusOK, get(h, a).Code)
	w := get(h, a)
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, "0", w.Header().Get("X-RateLimit-Remaining"))
	assert.Equal(t, `"per-ip";q=2;w=60`, w.Header().Get("RateLimit-Policy"))
	w = get(h, a)
	assert.Equal(t, http.StatusTooManyRequests, w.Code)
	assert.Equal(t, "30", w.Header().Get("Retry-After"))
	assert.Equal(t, "application/problem+json", w.Header().Get("Content-Type"))
	assert.Contains(t, w.Body.String(), `"violated-policies":["per-ip"]`)
	assert.Equal(t, http.StatusOK, get(h, b).Code)
	clk.Advance(30 * time.Second)
	assert.Equal(t, http.StatusOK, get(h, a).Code)
	assert.Equal(t, http.StatusTooManyRequests, get(h, a).Code)
	// Forwarding headers are not read: a forged X-Forwarded-For changes nothing.
	assert.Equal(t, http.StatusTooManyRequests, serve(h, http.MethodGet, "/", a, map[string]string{"X-Forwarded-For": "203.0.113.9"}))
}

// An invalid rate is an error naming the token and column; MustPerIP
// panics with it at setup, and never for a valid rate.
func TestPerIPInvalidRate(t *testing.T) {
	_, err := middleware.PerIP("100/mni")
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	var pe *core.ParseError
	require.True(t, errors.As(err, &pe))
	assert.Equal(t, 5, pe.Column)
	assert.PanicsWithError(t, err.Error(), func() { middleware.MustPerIP("100/mni") })
	assert.NotPanics(t, func() { middleware.MustPerIP("10/s burst 20") })
}
