package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A Concurrency refusal behind a rate limit that gave the request its last
// unit: its Retry-After was the slot hint, 1 s, and a client retrying then
// was refused by the rate limit (2 a minute) for 59 s more. It is now the
// longer wait the rate limit's fields tell of, and the retry passes.
func TestAttackConcurrencyRefusalBehindARateLimitWaitsForIt(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))
	l, err := core.NewLimiter(core.MustPolicy("global", core.Limit{Name: "global",
		Algorithm: core.FixedWindow{Quota: 2, Window: time.Minute}}), core.WithClock(clk))
	require.NoError(t, err)
	rate, err := middleware.New(l, middleware.Options{})
	require.NoError(t, err)
	entered, release := make(chan struct{}), make(chan struct{})
	block := true
	h := rate.Handler(concurrency(t, memSlots(t, 1), middleware.ConcurrencyOptions{},
		http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
			if block {
				close(entered)
				<-release
			}
		})))
	send := func() *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.RemoteAddr = client
		h.ServeHTTP(rec, req)
		return rec
	}
	done := make(chan int)
	go func() { done <- send().Code }()
	within.Recv(t, entered, "the first request in its handler")
	rec := send() // the rate limit's last unit; no slot
	block = false
	close(release)
	assert.Equal(t, http.StatusOK, within.Recv(t, done, "the first request's answer"))
	require.Equal(t, http.StatusTooManyRequests, rec.Code)
	ra, err := strconv.Atoi(rec.Header().Get("Retry-After"))
	require.NoError(t, err)
	assert.Equal(t, 60, ra)
	clk.Advance(time.Duration(ra) * time.Second)
	assert.Equal(t, http.StatusOK, send().Code, "retried at Retry-After")
}
