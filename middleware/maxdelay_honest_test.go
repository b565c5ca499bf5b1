package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackMaxDelayHeadersHonest: LeakyBucket 1/s, capacity 4, behind
// MaxDelay 1.5 s, requests of cost 1, 2, 2 at one instant of the
// limiter's clock. Before, the second showed X-RateLimit-Remaining 1 (a
// request of 1 would wait 3 s: refused), and the third was refused with
// Retry-After 1: a client back after 1 s was refused again (a 2 s delay).
// Now the second shows 0, the third Retry-After 2 (its 1.5 s rounded up)
// with RateLimit r=0;t=2, and a client back after 2 s is served.
func TestAttackMaxDelayHeadersHonest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := newClock()
		lim := limiter(t, clk, core.LeakyBucket{Rate: core.PerSecond(1), Capacity: 4})
		h := handler(t, lim, middleware.Options{MaxDelay: 1500 * time.Millisecond,
			Cost: func(r *http.Request) int64 {
				n, _ := strconv.ParseInt(r.Header.Get("X-Cost"), 10, 64)
				return n
			}}, okHandler)
		send := func(cost int) *httptest.ResponseRecorder {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.RemoteAddr = "192.0.2.1:1"
			r.Header.Set("X-Cost", strconv.Itoa(cost))
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			return w
		}
		w := send(1)
		require.Equal(t, http.StatusOK, w.Code)
		assert.Equal(t, "3", w.Header().Get("X-RateLimit-Remaining"))
		w = send(2)
		require.Equal(t, http.StatusOK, w.Code)
		assert.Equal(t, "0", w.Header().Get("X-RateLimit-Remaining"), "a request of 1 would wait 3 s")
		assert.Equal(t, http.StatusTooManyRequests, send(1).Code)
		w = send(2)
		require.Equal(t, http.StatusTooManyRequests, w.Code)
		assert.Equal(t, "0", w.Header().Get("X-RateLimit-Remaining"))
		assert.Equal(t, "2", w.Header().Get("Retry-After"))
		assert.Equal(t, `"api";r=0;t=2`, w.Header().Get("RateLimit"))
		clk.Advance(time.Second)
		assert.Equal(t, http.StatusTooManyRequests, send(2).Code, "1.5 s not yet passed")
		clk.Advance(time.Second)
		assert.Equal(t, http.StatusOK, send(2).Code, "back after Retry-After")
	})
}
