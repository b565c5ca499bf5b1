package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
)

// The default key reaches a *core.Limiter as bytes, yet it is the key of
// keyfunc.ClientIP, joined to a route's scope as for any other key: the
// state it spends is the one the string key names (what a Redis store
// would be given), for IPv4 and IPv6 clients, with and without a route.
func TestDefaultKeyIsTheClientIPKey(t *testing.T) {
	tests := []struct {
		remote, path string
		scoped       bool
		key          string
	}{
		{"192.0.2.7:4321", "/x", false, "192.0.2.7/32"},
		{"[2001:db8:1:2::5]:443", "/x", false, "2001:db8:1:2::/64"},
		{"192.0.2.7:4321", "/api/x", true, "9:GET /api/192.0.2.7/32"},
		{"[2001:db8:1:2::5]:443", "/api/x", true, "9:GET /api/2001:db8:1:2::/64"},
	}
	for _, tt := range tests {
		t.Run(tt.remote+tt.path, func(t *testing.T) {
			lim := limiter(t, newClock(), core.GCRA{Rate: core.Per(3, time.Hour)})
			var h http.Handler
			if tt.scoped {
				rt := middleware.NewRoutes(nil)
				// Two routes share lim: their keys are scoped.
				require.NoError(t, rt.Add("GET /api/", lim))
				require.NoError(t, rt.Add("GET /other/", lim))
				m, err := middleware.NewSelect(rt, middleware.Options{})
				require.NoError(t, err)
				h = m.Handler(okHandler)
			} else {
				h = handler(t, lim, middleware.Options{}, okHandler)
			}
			r := httptest.NewRequest(http.MethodGet, tt.path, nil)
			r.RemoteAddr = tt.remote
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			require.Equal(t, http.StatusOK, w.Code)
			assert.Equal(t, "2", w.Header().Get("X-RateLimit-Remaining"))
			res, err := lim.Peek(t.Context(), tt.key, 1)
			require.NoError(t, err)
			assert.Equal(t, int64(1), res.Remaining, "the request spent %q's state", tt.key)
		})
	}
}

// A shaping delay beyond MaxDelay is given back under the default key:
// the refused request leaves the client's state as it found it.
func TestDefaultKeyGivesBackADelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lim := limiter(t, newClock(), core.LeakyBucket{Rate: core.PerSecond(1), Capacity: 10})
		var errs []error
		h := handler(t, lim, middleware.Options{MaxDelay: 1500 * time.Millisecond,
			OnError: func(_ *http.Request, err error) { errs = append(errs, err) }}, okHandler)
		for range 2 { // at once, then after a second
			require.Equal(t, http.StatusOK, get(h, "192.0.2.1:1").Code)
		}
		before, err := lim.Peek(t.Context(), "192.0.2.1/32", 1)
		require.NoError(t, err)
		require.Equal(t, http.StatusTooManyRequests, get(h, "192.0.2.1:1").Code, "a 2 s delay is beyond MaxDelay")
		after, err := lim.Peek(t.Context(), "192.0.2.1/32", 1)
		require.NoError(t, err)
		assert.Equal(t, before.Delay, after.Delay, "the refused request's slot was given back")
		assert.Empty(t, errs)
	})
}
