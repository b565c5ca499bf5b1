package stacktest

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// CheckStackedWaitsForNextAdmission checks a router's adapter passing on
// the admission of an outer middleware: mount serves GET /items with h
// behind outer (mounted for every route) and inner (on the route). The
// outer limit, 1,000 a day with a burst of 10, gives the 10th request its
// last unit, and the inner one (one every 10 s, a burst of 9) refuses it:
// Retry-After must be the wait for the outer limit's next admission, 87
// s, not its reset (864 s): a retry a second earlier is refused, one
// then passes.
func CheckStackedWaitsForNextAdmission(t *testing.T, mount func(outer, inner *middleware.Middleware, h http.HandlerFunc) http.Handler) {
	t.Helper()
	clk := coretest.NewClock(time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))
	mw := func(name string, a core.Algorithm) *middleware.Middleware {
		l, err := core.NewLimiter(core.MustPolicy(name, core.Limit{Name: name, Algorithm: a}), core.WithClock(clk))
		require.NoError(t, err)
		m, err := middleware.New(l, middleware.Options{Key: func(*http.Request) (string, error) { return "client", nil }})
		require.NoError(t, err)
		return m
	}
	h := mount(mw("global", core.GCRA{Rate: core.Per(1000, 24*time.Hour), Burst: 10}),
		mw("route", core.GCRA{Rate: core.Per(1, 10*time.Second), Burst: 9}),
		func(http.ResponseWriter, *http.Request) {})
	get := func() *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/items", nil))
		return rec
	}
	for i := 1; i <= 9; i++ {
		require.Equal(t, http.StatusOK, get().Code, "request %d", i)
	}
	rec := get()
	require.Equal(t, http.StatusTooManyRequests, rec.Code)
	assert.Equal(t, "87", rec.Header().Get("Retry-After"))
	clk.Advance(86 * time.Second)
	require.Equal(t, http.StatusTooManyRequests, get().Code, "a second early")
	clk.Advance(time.Second)
	assert.Equal(t, http.StatusOK, get().Code, "at Retry-After")
}
