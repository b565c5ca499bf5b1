package login_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// admitted counts the failures g admits for alice before throttling, at
// most 50.
func admitted(t *testing.T, g *login.Guard) int {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/login", nil)
	for n := range 50 {
		a, err := g.Begin(context.Background(), "alice", r)
		if errors.Is(err, login.ErrThrottled) {
			return n
		}
		require.NoError(t, err)
		a.Failed()
	}
	return 50
}

// Reporting one attempt many times, from many goroutines at once, acts
// once: one refund, whatever the mix of reports.
func TestAttemptReportsActOnce(t *testing.T) {
	for _, mix := range []string{"succeeded", "failed", "mixed"} {
		t.Run(mix, func(t *testing.T) {
			clk := coretest.NewClock(t0)
			g := newGuard(t, clk, login.Options{Account: core.Backoff{Free: 2, Base: time.Hour}})
			r := httptest.NewRequest(http.MethodPost, "/login", nil)
			a, err := g.Begin(context.Background(), "alice", r)
			require.NoError(t, err)
			start := make(chan struct{})
			var wg sync.WaitGroup
			for i := range 64 {
				wg.Go(func() {
					<-start
					switch {
					case mix == "succeeded", mix == "mixed" && i%2 == 0:
						a.Succeeded()
						a.Respond(http.Header{}, http.StatusOK)
					default:
						a.Failed()
						a.Respond(http.Header{}, http.StatusUnauthorized)
					}
				})
			}
			close(start)
			within.Wait(t, &wg, "the test's goroutines")
			n := admitted(t, g)
			switch mix {
			case "succeeded":
				assert.Equal(t, 3, n, "refunded once: 2 free and the one that locks")
			case "failed":
				assert.Equal(t, 2, n)
			default:
				assert.Contains(t, []int{2, 3}, n)
			}
		})
	}
}

// A handler that returns without writing (echo's WrapMiddleware with an
// error returned, or a plain handler) leaves the attempt counted as a
// failure and is reported, instead of being taken for a 200.
func TestUnwrittenResponseCountsAsFailure(t *testing.T) {
	clk := coretest.NewClock(t0)
	var errs []error
	g := newGuard(t, clk, login.Options{
		Account: core.Backoff{Free: 2, Base: time.Hour},
		OnError: func(_ *http.Request, err error) { errs = append(errs, err) },
	})
	h := g.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	var codes []int
	for range 4 {
		codes = append(codes, serve(h, formRequest("alice", "x", "192.0.2.1:1")).Code)
	}
	assert.Equal(t, []int{200, 200, 200, 429}, codes)
	require.Len(t, errs, 3)
	assert.ErrorIs(t, errs[0], login.ErrNoResponse)

	// A body alone is a 200, a success.
	g = newGuard(t, clk, login.Options{Account: core.Backoff{Free: 1, Base: time.Hour}})
	h = g.Handler(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("welcome")) }))
	for range 5 {
		require.Equal(t, http.StatusOK, serve(h, formRequest("alice", "x", "192.0.2.1:1")).Code)
	}
}

// A panicking handler leaves the attempt counted as failed, and the panic
// goes on.
func TestPanicCountsAsFailure(t *testing.T) {
	clk := coretest.NewClock(t0)
	g := newGuard(t, clk, login.Options{Account: core.Backoff{Free: 1, Base: time.Hour}})
	h := g.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }))
	for range 2 {
		assert.PanicsWithValue(t, "boom", func() { serve(h, formRequest("alice", "x", "192.0.2.1:1")) })
	}
	assert.Equal(t, http.StatusTooManyRequests, serve(h, formRequest("alice", "x", "192.0.2.1:1")).Code)
}
