package chilimit_test

import (
	"errors"
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The one-liner on the root router counts every request of a client IP:
// HEAD of a GET route and requests chi answers 404 or 405 included.
// (The behaviour table in adapters/stacks checks its answers against
// net/http's, preflights and IPv6 included.)
func TestPerIPCountsEveryRequest(t *testing.T) {
	r := chi.NewRouter()
	r.Use(chilimit.MustPerIP("3/hour"))
	r.Get("/hello", ok)
	assert.Equal(t, http.StatusOK, get(r, "GET", "/hello").Code)
	assert.Equal(t, http.StatusMethodNotAllowed, get(r, "HEAD", "/hello").Code)
	assert.Equal(t, http.StatusNotFound, get(r, "GET", "/nowhere").Code)
	w := get(r, "HEAD", "/hello")
	assert.Equal(t, http.StatusTooManyRequests, w.Code)
	assert.Equal(t, "application/problem+json", w.Header().Get("Content-Type"))
	assert.Equal(t, `"per-ip";q=3;w=3600`, w.Header().Get("RateLimit-Policy"))
}

// An invalid rate is PerIP's error, naming the column; MustPerIP panics
// with it when the router is built.
func TestPerIPInvalidRate(t *testing.T) {
	mw, err := chilimit.PerIP("100/mni")
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	assert.Nil(t, mw)
	var pe *core.ParseError
	require.True(t, errors.As(err, &pe))
	assert.Equal(t, 5, pe.Column)
	assert.PanicsWithError(t, err.Error(), func() { chilimit.MustPerIP("100/mni") })
}
