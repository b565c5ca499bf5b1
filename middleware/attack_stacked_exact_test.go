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
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stackedGCRA returns an outer limit of 1,000 a day (a burst of 10)
// around an inner one of one every 10 s (a burst of 9), both keyed by one
// client, on clk, with inner's options o.
func stackedGCRA(t *testing.T, clk *coretest.Clock, o middleware.Options) (outer, inner *middleware.Middleware) {
	t.Helper()
	mw := func(name string, a core.Algorithm, o middleware.Options) *middleware.Middleware {
		l, err := core.NewLimiter(core.MustPolicy(name, core.Limit{Name: name, Algorithm: a}), core.WithClock(clk))
		require.NoError(t, err)
		o.Key = func(*http.Request) (string, error) { return "client", nil }
		m, err := middleware.New(l, o)
		require.NoError(t, err)
		return m
	}
	outer = mw("global", core.GCRA{Rate: core.Per(1000, 24*time.Hour), Burst: 10}, middleware.Options{})
	inner = mw("route", core.GCRA{Rate: core.Per(1, 10*time.Second), Burst: 9}, o)
	return outer, inner
}

// retryAfter returns the Retry-After of a 429 h answered.
func retryAfterOf(t *testing.T, h http.Handler) string {
	t.Helper()
	rec := getOnce(h)
	require.Equal(t, http.StatusTooManyRequests, rec.Code)
	return rec.Header().Get("Retry-After")
}

// The outer limit admits the 10th request with its last unit, the inner
// one denies it (for 10 s). The outer limit admits one more request 86.4 s
// later, but the inner middleware read its wait from the outer's fields,
// which tell when it is whole again: Retry-After was 864 s, ten times what
// a retry needs. It is now 87 s, the wait for the outer's next admission
// (no shorter: a retry at 86 s is refused), read from the outer decision
// the outer middleware shares through the request's context.
func TestAttackStackedDenialWaitsForTheOuterNextAdmission(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))
	outer, inner := stackedGCRA(t, clk, middleware.Options{})
	h := outer.Handler(inner.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})))
	for i := 1; i <= 9; i++ {
		require.Equal(t, http.StatusOK, getOnce(h).Code, "request %d", i)
	}
	rec := getOnce(h)
	require.Equal(t, http.StatusTooManyRequests, rec.Code)
	assert.Equal(t, "87", rec.Header().Get("Retry-After"))
	assert.Equal(t, strconv.FormatInt(clk.Now().Unix()+87, 10), rec.Header().Get("X-RateLimit-Reset"),
		"when the request passes, as Retry-After")
	clk.Advance(86 * time.Second)
	assert.Equal(t, "1", retryAfterOf(t, h), "a second early: the outer limit refuses")
	clk.Advance(time.Second)
	assert.Equal(t, http.StatusOK, getOnce(h).Code, "at Retry-After")
}

// Attacks on the shared decision: it must never make the wait told
// shorter than the true one.
func TestAttackStackedSharedWaitNeverShorter(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	nothing := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	// drain sends the 9 requests both limits admit, then the 10th.
	drain := func(t *testing.T, h http.Handler) string {
		t.Helper()
		for i := 1; i <= 9; i++ {
			require.Equal(t, http.StatusOK, getOnce(h).Code, "request %d", i)
		}
		return retryAfterOf(t, h)
	}
	// Fields written between two middlewares of this package: the inner
	// one cannot tell them from the outer's, and reads the wait every
	// field tells of, never less.
	t.Run("a foreign middleware between tells a longer wait", func(t *testing.T) {
		t.Parallel()
		clk := coretest.NewClock(at)
		outer, inner := stackedGCRA(t, clk, middleware.Options{})
		foreign := func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("X-RateLimit-Remaining", "0")
				w.Header().Set("X-RateLimit-Reset", "1767313000") // 1,000 s on
				next.ServeHTTP(w, r)
			})
		}
		assert.Equal(t, "1000", drain(t, outer.Handler(foreign(inner.Handler(nothing)))))
	})
	t.Run("a foreign middleware outside tells a longer wait", func(t *testing.T) {
		t.Parallel()
		clk := coretest.NewClock(at)
		outer, inner := stackedGCRA(t, clk, middleware.Options{})
		h := outer.Handler(inner.Handler(nothing))
		foreign := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Retry-After", "300")
			h.ServeHTTP(w, r)
		})
		assert.Equal(t, "300", drain(t, foreign))
	})
	t.Run("a dry-running outer limit imposes no wait", func(t *testing.T) {
		t.Parallel()
		clk := coretest.NewClock(at)
		l, err := core.NewLimiter(core.MustPolicy("global", core.Limit{Name: "global",
			Algorithm: core.FixedWindow{Quota: 5, Window: time.Hour}}), core.WithClock(clk))
		require.NoError(t, err)
		outer, err := middleware.New(l, middleware.Options{DryRun: true})
		require.NoError(t, err)
		_, inner := stackedGCRA(t, clk, middleware.Options{})
		assert.Equal(t, "10", drain(t, outer.Handler(inner.Handler(nothing))), "the inner limit's own wait")
	})
	t.Run("three stacked, the outer two keyed by IP and by client", func(t *testing.T) {
		t.Parallel()
		clk := coretest.NewClock(at)
		l, err := core.NewLimiter(core.MustPolicy("ip", core.Limit{Name: "ip",
			Algorithm: core.GCRA{Rate: core.Per(1, 2*time.Minute), Burst: 10}}), core.WithClock(clk))
		require.NoError(t, err)
		byIP, err := middleware.New(l, middleware.Options{}) // the default key: the client IP
		require.NoError(t, err)
		outer, inner := stackedGCRA(t, clk, middleware.Options{})
		h := byIP.Handler(outer.Handler(inner.Handler(nothing)))
		assert.Equal(t, "120", drain(t, h), "the IP limit admits again in 120 s (not 1,200), the global one in 87 s")
		clk.Advance(120 * time.Second)
		assert.Equal(t, http.StatusOK, getOnce(h).Code, "at Retry-After")
	})
	t.Run("a concurrency limit inside", func(t *testing.T) {
		t.Parallel()
		clk := coretest.NewClock(at)
		outer, inner := stackedGCRA(t, clk, middleware.Options{})
		slots, err := inflight.NewMemory(1, inflight.MemoryOptions{})
		require.NoError(t, err)
		key := func(*http.Request) (string, error) { return "client", nil }
		c, err := middleware.NewConcurrency(slots, middleware.ConcurrencyOptions{Key: key})
		require.NoError(t, err)
		h := outer.Handler(c.Handler(inner.Handler(nothing)))
		for i := 1; i <= 9; i++ {
			require.Equal(t, http.StatusOK, getOnce(h).Code, "request %d", i)
		}
		held, err := slots.Acquire(context.Background(), "client")
		require.NoError(t, err)
		defer held.Release(context.Background())
		assert.Equal(t, "87", retryAfterOf(t, h), "no slot free, and the outer limit admits again in 87 s")
	})
}
