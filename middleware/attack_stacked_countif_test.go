package middleware_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The outer limit (1,000 a day, a burst of 10) counts only requests
// answered below 400: it admits the 10th request with its last unit, the
// inner one (one every 10 s) denies it, and the outer gives its unit back
// for the 429. Retry-After told the outer's next admission, 87 s, where
// a retry is admitted in 10 s: the shared decision's wait was counted for
// an answer its middleware refunds. An answer the outer middleware does
// not count waits for it no longer.
func TestAttackStackedRefundedOuterImposesNoWait(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))
	mw := func(name string, a core.Algorithm, o middleware.Options) *middleware.Middleware {
		l, err := core.NewLimiter(core.MustPolicy(name, core.Limit{Name: name, Algorithm: a}), core.WithClock(clk))
		require.NoError(t, err)
		o.Key = func(*http.Request) (string, error) { return "client", nil }
		m, err := middleware.New(l, o)
		require.NoError(t, err)
		return m
	}
	outer := mw("global", core.GCRA{Rate: core.Per(1000, 24*time.Hour), Burst: 10},
		middleware.Options{CountIf: func(s int) bool { return s < 400 }})
	inner := mw("route", core.GCRA{Rate: core.Per(1, 10*time.Second), Burst: 9}, middleware.Options{})
	h := outer.Handler(inner.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})))
	for i := 1; i <= 9; i++ {
		require.Equal(t, http.StatusOK, getOnce(h).Code, "request %d", i)
	}
	rec := getOnce(h)
	require.Equal(t, http.StatusTooManyRequests, rec.Code)
	assert.Equal(t, "10", rec.Header().Get("Retry-After"), "the inner limit's wait: the outer's unit is given back")
	assert.Equal(t, strconv.FormatInt(clk.Now().Unix()+10, 10), rec.Header().Get("X-RateLimit-Reset"))
	clk.Advance(10 * time.Second)
	assert.Equal(t, http.StatusOK, getOnce(h).Code, "at Retry-After")
}
