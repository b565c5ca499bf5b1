package middleware_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/inflight"
	"github.com/floodgate-go/floodgate/headers"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An outer limit whose Writer tells clients nothing but Retry-After (an
// operator hiding the quotas) writes no field on an admission. The
// decision it shares reached an inner rate limit's refusal, but not a
// Concurrency refusal's or a handler's asking middleware.HeldWait (the
// login guard): with no field in the response they returned at once, and
// told 1 s (no slot free) where the outer limit, which gave the request
// its last unit, refuses until 87 s.
func TestAttackStackedWaitWithoutFields(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	key := func(*http.Request) (string, error) { return "client", nil }
	outerOf := func(t *testing.T, clk *coretest.Clock) *middleware.Middleware {
		hdr, err := headers.New(headers.Options{Omit: headers.XRateLimit | headers.IETF})
		require.NoError(t, err)
		l, err := core.NewLimiter(core.MustPolicy("global", core.Limit{Name: "global",
			Algorithm: core.GCRA{Rate: core.Per(1000, 24*time.Hour), Burst: 10}}), core.WithClock(clk))
		require.NoError(t, err)
		m, err := middleware.New(l, middleware.Options{Headers: hdr, Key: key})
		require.NoError(t, err)
		return m
	}
	t.Run("a concurrency limit inside", func(t *testing.T) {
		t.Parallel()
		clk := coretest.NewClock(at)
		slots, err := inflight.NewMemory(1, inflight.MemoryOptions{})
		require.NoError(t, err)
		c, err := middleware.NewConcurrency(slots, middleware.ConcurrencyOptions{Key: key})
		require.NoError(t, err)
		h := outerOf(t, clk).Handler(c.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})))
		for i := 1; i <= 9; i++ {
			require.Equal(t, http.StatusOK, getOnce(h).Code, "request %d", i)
		}
		held, err := slots.Acquire(context.Background(), "client")
		require.NoError(t, err)
		defer held.Release(context.Background())
		assert.Equal(t, "87", retryAfterOf(t, h))
	})
	t.Run("a handler refusing on its own grounds", func(t *testing.T) {
		t.Parallel()
		clk := coretest.NewClock(at)
		var wait int64
		h := outerOf(t, clk).Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			wait = middleware.HeldWait(r, w.Header(), 0)
		}))
		for i := 1; i <= 10; i++ {
			require.Equal(t, http.StatusOK, getOnce(h).Code, "request %d", i)
		}
		assert.Equal(t, "87", strconv.FormatInt(wait, 10), "after the request taking the last unit")
	})
}
