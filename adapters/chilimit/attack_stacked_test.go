package chilimit_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A global limit of 1,000 a day (a burst of 10) mounted with r.Use
// around a route's of one every 10 s (a burst of 9): the 10th request
// takes the global limit's last unit and is denied by the route's. Its
// Retry-After was 864 s, when the global limit is whole again; it is now
// 87 s, when it admits one more request, which the adapter learns from
// the admission it passes on (middleware.Admission.Request).
func TestAttackStackedDenialWaitsForTheOuterNextAdmission(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))
	mw := func(name string, a core.Algorithm) *middleware.Middleware {
		l, err := core.NewLimiter(core.MustPolicy(name, core.Limit{Name: name, Algorithm: a}), core.WithClock(clk))
		require.NoError(t, err)
		m, err := middleware.New(l, middleware.Options{Key: func(*http.Request) (string, error) { return "client", nil }})
		require.NoError(t, err)
		return m
	}
	outer := mw("global", core.GCRA{Rate: core.Per(1000, 24*time.Hour), Burst: 10})
	inner := mw("route", core.GCRA{Rate: core.Per(1, 10*time.Second), Burst: 9})
	r := chi.NewRouter()
	r.Use(chilimit.Limit(outer))
	r.With(chilimit.Limit(inner)).Get("/items", func(http.ResponseWriter, *http.Request) {})
	get := func() *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		r.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/items", nil))
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
