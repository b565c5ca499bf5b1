package middleware_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAdmissionEndOnce: ending an admission twice, concurrently, or ending
// copies of it gives its cost back once. Successes are ended three ways
// each; the failures that follow are still held to the limit of 3.
func TestAdmissionEndOnce(t *testing.T) {
	lim := limiter(t, newClock(), core.GCRA{Rate: core.PerHour(3)})
	var errs []error
	m, err := middleware.New(lim, middleware.Options{
		CountIf: func(status int) bool { return status >= 400 },
		OnError: func(_ *http.Request, err error) { errs = append(errs, err) },
	})
	require.NoError(t, err)
	req := httptest.NewRequest(http.MethodPost, "/login", nil)
	req.RemoteAddr = "192.0.2.1:1234"
	ctx := context.Background()
	// Two failures count.
	for range 2 {
		a, ok := m.Begin(httptest.NewRecorder(), req, "")
		require.True(t, ok)
		require.True(t, a.Counting())
		a.End(ctx, http.StatusUnauthorized)
	}
	// 49 successes, each ended twice, concurrently, and through a copy.
	for range 49 {
		a, ok := m.Begin(httptest.NewRecorder(), req, "")
		require.True(t, ok)
		cp := a
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() { a.End(ctx, http.StatusOK) })
		}
		within.Wait(t, &wg, "the test's goroutines")
		cp.End(ctx, http.StatusOK)
		cp.End(ctx, http.StatusOK)
	}
	// One more failure fits the limit of 3; the next is refused.
	admitted := 0
	for range 49 {
		a, ok := m.Begin(httptest.NewRecorder(), req, "")
		if ok {
			admitted++
			a.End(ctx, http.StatusUnauthorized)
		}
	}
	assert.Equal(t, 1, admitted, "failures admitted after the successes")
	assert.Empty(t, errs, "a repeated End is not an error")
}
