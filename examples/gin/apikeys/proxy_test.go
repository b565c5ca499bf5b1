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

// Deployed behind a proxy (at 10.0.0.7, appending the client's address to
// X-Forwarded-For), one anonymous client's 60 requests a minute refuse no
// other client once the proxy's network is named. With no way to name it,
// every anonymous client was the proxy's one address: after one client's
// 60, another client's first request was 429.
func TestAttackBehindAProxyOneClientLocksOutNobody(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(time.Date(2026, 1, 4, 0, 0, 0, 0, time.UTC))
	h := newEngine([]string{"10.0.0.7/32"}, core.WithClock(clk))
	get := func(xff string) int {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.RemoteAddr = "10.0.0.7:41000"
		r.Header.Set("X-Forwarded-For", xff)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	for i := range 60 {
		require.Equal(t, http.StatusOK, get("198.51.100.1"), i)
	}
	assert.Equal(t, http.StatusTooManyRequests, get("203.0.113.9, 198.51.100.1"), "the client, whatever it writes")
	assert.Equal(t, http.StatusOK, get("198.51.100.2"), "another client")
}
