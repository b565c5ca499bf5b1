package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stacked returns a handler behind two middlewares, as an application
// mounts a global limit around a route's: "global" (3 a minute) outside,
// "route" (100 a minute) inside, both keyed by one client, on clk.
func stacked(t *testing.T, clk *coretest.Clock) http.Handler {
	t.Helper()
	mw := func(name string, quota int64) *middleware.Middleware {
		l, err := core.NewLimiter(core.MustPolicy(name, core.Limit{Name: name,
			Algorithm: core.FixedWindow{Quota: quota, Window: time.Minute}}), core.WithClock(clk))
		require.NoError(t, err)
		m, err := middleware.New(l, middleware.Options{Key: func(*http.Request) (string, error) { return "client", nil }})
		require.NoError(t, err)
		return m
	}
	outer, inner := mw("global", 3), mw("route", 100)
	return outer.Handler(inner.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})))
}

func getOnce(h http.Handler) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	return rec
}

// Behind two middlewares, the inner one's fields replaced the outer's: a
// client was told of the route's limit alone. After 3 requests it read
// X-RateLimit-Remaining: 97 and RateLimit "route";r=97, and its next
// request was refused by the global limit, which no field had named. The
// fields now describe both decisions: RateLimit and RateLimit-Policy list
// both limits, X-RateLimit-* is the stricter's (remaining 0), and a client
// that sends what they promise is not refused.
func TestAttackStackedMiddlewaresHideTheOuterLimit(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))
	h := stacked(t, clk)
	for i := 1; i <= 3; i++ {
		rec := getOnce(h)
		require.Equal(t, http.StatusOK, rec.Code)
		hd := rec.Header()
		left := strconv.Itoa(3 - i)
		assert.Equal(t, left, hd.Get("X-RateLimit-Remaining"), "request %d", i)
		assert.Equal(t, "3", hd.Get("X-RateLimit-Limit"), "request %d", i)
		assert.Equal(t, []string{`"global";q=3;w=60, "route";q=100;w=60`}, hd.Values("RateLimit-Policy"), "request %d", i)
		assert.Equal(t, []string{`"global";r=` + left + `;t=60, "route";r=` + strconv.Itoa(100-i) + `;t=60`}, hd.Values("RateLimit"), "request %d", i)
	}
	rec := getOnce(h)
	require.Equal(t, http.StatusTooManyRequests, rec.Code, "the promise was 0")
	ra, err := strconv.Atoi(rec.Header().Get("Retry-After"))
	require.NoError(t, err)
	clk.Advance(time.Duration(ra) * time.Second)
	assert.Equal(t, http.StatusOK, getOnce(h).Code, "at Retry-After")
}

// An inner denial waits for both limits: the outer one admitted the
// request, taking its last unit, so a retry passes only when the outer
// limit has one again. Before, Retry-After was the inner limit's 9 s, and
// a client retrying then was refused by the outer limit (for 50 s more);
// Retry-After and X-RateLimit-Reset are now the longer wait, 59 s, and
// the retry passes.
func TestAttackStackedDenialWaitsForBoth(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))
	mw := func(name string, a core.Algorithm) *middleware.Middleware {
		l, err := core.NewLimiter(core.MustPolicy(name, core.Limit{Name: name, Algorithm: a}), core.WithClock(clk))
		require.NoError(t, err)
		m, err := middleware.New(l, middleware.Options{Key: func(*http.Request) (string, error) { return "client", nil }})
		require.NoError(t, err)
		return m
	}
	// Outer: 2 a minute. Inner: one every 10 s.
	outer := mw("global", core.FixedWindow{Quota: 2, Window: time.Minute})
	inner := mw("route", core.GCRA{Rate: core.Per(1, 10*time.Second), Burst: 1})
	h := outer.Handler(inner.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})))
	require.Equal(t, http.StatusOK, getOnce(h).Code)
	clk.Advance(time.Second)
	// The outer admits its last unit; the inner refuses for 9 s, but the
	// request can pass only when the outer's window ends, in 59 s.
	rec := getOnce(h)
	require.Equal(t, http.StatusTooManyRequests, rec.Code)
	assert.Equal(t, "59", rec.Header().Get("Retry-After"), "the outer limit's wait, the longer")
	assert.Equal(t, []string{`"global";r=0;t=59, "route";r=0;t=9`}, rec.Header().Values("RateLimit"))
	reset, err := strconv.ParseInt(rec.Header().Get("X-RateLimit-Reset"), 10, 64)
	require.NoError(t, err)
	assert.Equal(t, clk.Now().Unix()+59, reset, "X-RateLimit-Reset: when the request passes, as Retry-After")
	clk.Advance(58 * time.Second)
	require.Equal(t, http.StatusTooManyRequests, getOnce(h).Code, "a second early")
	clk.Advance(time.Second)
	assert.Equal(t, http.StatusOK, getOnce(h).Code, "at Retry-After")
}

// An inner limiter failing closed behind a rate limit that gave the
// request its last unit: the 503's Retry-After was FailRetryAfter (1 s),
// and a retry then was refused by the outer limit for 59 s more. It is
// now the longer wait the outer limit's fields tell of.
func TestAttackStackedOutageWaitsForTheOuterLimit(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))
	l, err := core.NewLimiter(core.MustPolicy("global", core.Limit{Name: "global",
		Algorithm: core.FixedWindow{Quota: 1, Window: time.Minute}}), core.WithClock(clk))
	require.NoError(t, err)
	key := func(*http.Request) (string, error) { return "client", nil }
	outer, err := middleware.New(l, middleware.Options{Key: key})
	require.NoError(t, err)
	inner, err := middleware.New(failing{}, middleware.Options{Key: key})
	require.NoError(t, err)
	rec := getOnce(outer.Handler(inner.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))))
	require.Equal(t, http.StatusServiceUnavailable, rec.Code)
	assert.Equal(t, "60", rec.Header().Get("Retry-After"))
}
