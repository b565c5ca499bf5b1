package middleware_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The outer limit (1,000 a day, a burst of 10) admits the 10th request with its last unit, and the
// middleware inside, its store down, answers 503 with Retry-After 87, the
// outer's next admission. The outer's fields on that answer still told
// when it is whole again, X-RateLimit-Remaining 0 and X-RateLimit-Reset
// 864 s on: a client obeying them, as many do on
// a remaining of 0, waited ten times Retry-After. A refusal's fields of a
// limit with nothing remaining now tell its Retry-After.
func TestAttackRefusalResetsAgreeWithRetryAfter(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))
	outer, _ := stackedGCRA(t, clk, middleware.Options{})
	inner, err := middleware.New(failing{}, middleware.Options{Key: func(*http.Request) (string, error) { return "client", nil }})
	require.NoError(t, err)
	h := outer.Handler(inner.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})))
	for i := 1; i <= 9; i++ {
		require.Equal(t, http.StatusServiceUnavailable, getOnce(h).Code, "request %d", i)
	}
	before := time.Now().Unix()
	rec := getOnce(h)
	after := time.Now().Unix()
	require.Equal(t, http.StatusServiceUnavailable, rec.Code)
	require.Equal(t, "0", rec.Header().Get("X-RateLimit-Remaining"))
	assert.Equal(t, "87", rec.Header().Get("Retry-After"))
	reset, err := strconv.ParseInt(rec.Header().Get("X-RateLimit-Reset"), 10, 64)
	require.NoError(t, err)
	assert.True(t, before+87 <= reset && reset <= after+88, "X-RateLimit-Reset %d: Retry-After from now (the system clock, as Retry-After is read)", reset)
}

// The draft 11 RateLimit list tells each limit's wait when it has nothing
// left (r=0): a client reads it as when that limit passes. Of the outer
// limit that gave a request its last unit, it told its reset, t=864,
// where it passes in 87 s, beside Retry-After 87 (on the inner's denial)
// and 87 (on the inner's 503): its t is now no later than Retry-After.
func TestAttackRefusalListsNoLongerWaitThanRetryAfter(t *testing.T) {
	t.Parallel()
	for name, failed := range map[string]bool{"denial": false, "outage": true} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			clk := coretest.NewClock(time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))
			outer, inner := stackedGCRA(t, clk, middleware.Options{})
			if failed {
				var err error
				inner, err = middleware.New(failing{}, middleware.Options{Key: func(*http.Request) (string, error) { return "client", nil }})
				require.NoError(t, err)
			}
			h := outer.Handler(inner.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})))
			for i := 1; i <= 9; i++ {
				getOnce(h)
			}
			rec := getOnce(h)
			require.Equal(t, "87", rec.Header().Get("Retry-After"))
			want := `"global";r=0;t=87, "route";r=0;t=10`
			if failed {
				want = `"global";r=0;t=87`
			}
			assert.Equal(t, want, rec.Header().Get("RateLimit"))
		})
	}
}
