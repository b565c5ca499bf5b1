package stacktest

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// CheckPerIPCountsEveryRequest checks a router's one-line per-IP
// middleware: h is the router with it mounted on the whole router, made
// with the rate "3/hour", and one route, GET /hello. Every request of the
// client counts, whatever the router answers it: GET /hello (200), HEAD
// /hello (head: the router's own answer, 404 or 405), GET /nowhere (404),
// and the fourth request is refused with 429, a problem+json body and the
// "per-ip" policy header.
func CheckPerIPCountsEveryRequest(t *testing.T, h http.Handler, head int) {
	t.Helper()
	do := func(method, path string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(method, path, nil))
		return w
	}
	assert.Equal(t, http.StatusOK, do("GET", "/hello").Code)
	assert.Equal(t, head, do("HEAD", "/hello").Code)
	assert.Equal(t, http.StatusNotFound, do("GET", "/nowhere").Code)
	w := do("HEAD", "/hello")
	assert.Equal(t, http.StatusTooManyRequests, w.Code)
	assert.Equal(t, "application/problem+json", w.Header().Get("Content-Type"))
	assert.Equal(t, `"per-ip";q=3;w=3600`, w.Header().Get("RateLimit-Policy"))
}

// CheckPerIPInvalidRate checks a router's PerIP and MustPerIP on an
// invalid rate: PerIP returns no middleware and an error wrapping
// core.ErrInvalidConfig whose core.ParseError names the column, and
// MustPerIP panics with that error (when the router is built).
func CheckPerIPInvalidRate[M any](t *testing.T, perIP func(rate string, opts ...core.Option) (M, error), mustPerIP func(rate string, opts ...core.Option) M) {
	t.Helper()
	mw, err := perIP("100/mni")
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	assert.Nil(t, mw)
	var pe *core.ParseError
	require.True(t, errors.As(err, &pe))
	assert.Equal(t, 5, pe.Column)
	assert.PanicsWithError(t, err.Error(), func() { mustPerIP("100/mni") })
}
