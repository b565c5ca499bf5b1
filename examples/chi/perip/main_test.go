package main

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func do(h http.Handler, method, remote string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, "/", nil)
	r.RemoteAddr = remote
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// 100 requests a minute per client IP, HEAD counted like GET (chi answers
// it 405: the route has no HEAD); another client has its own 100; one more
// every 600 ms.
func TestPerIP(t *testing.T) {
	clk := coretest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	h := newRouter(core.WithClock(clk))
	for i := range 100 {
		if i%2 == 1 {
			require.Equal(t, http.StatusMethodNotAllowed, do(h, http.MethodHead, "192.0.2.1:1").Code, "request %d", i)
			continue
		}
		require.Equal(t, http.StatusOK, do(h, http.MethodGet, "192.0.2.1:1").Code, "request %d", i)
	}
	w := do(h, http.MethodGet, "192.0.2.1:1")
	assert.Equal(t, http.StatusTooManyRequests, w.Code)
	assert.Equal(t, "1", w.Header().Get("Retry-After"))
	assert.Equal(t, "application/problem+json", w.Header().Get("Content-Type"))
	assert.Equal(t, `"per-ip";q=100;w=60`, w.Header().Get("RateLimit-Policy"))
	assert.Equal(t, http.StatusOK, do(h, http.MethodGet, "192.0.2.2:1").Code)
	clk.Advance(600 * time.Millisecond)
	assert.Equal(t, http.StatusOK, do(h, http.MethodGet, "192.0.2.1:1").Code)
	assert.Equal(t, http.StatusTooManyRequests, do(h, http.MethodGet, "192.0.2.1:1").Code)
}
