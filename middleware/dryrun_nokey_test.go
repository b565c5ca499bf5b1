package middleware_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDryRunServesKeylessRequests: DryRun "never blocks" a request, yet
// one whose key or limiter could not be determined was refused 403: a
// shadow rollout of a key such as keyfunc.Header("X-API-Key") refused
// every request without the header (3 of 3). It reports the error to
// OnError and serves them, the default key's unusable RemoteAddr and a
// tier that cannot be resolved too; without DryRun they are refused.
func TestDryRunServesKeylessRequests(t *testing.T) {
	t.Parallel()
	tiers, err := middleware.Tiers(func(*http.Request) (string, error) { return "", errors.New("no tenant") },
		map[string]middleware.Limiter{"free": limiter(t, newClock(), core.FixedWindow{Quota: 1, Window: time.Hour})})
	require.NoError(t, err)
	for _, dry := range []bool{true, false} {
		var errs []error
		opts := middleware.Options{DryRun: dry, OnError: func(_ *http.Request, err error) { errs = append(errs, err) }}
		byHeader := opts
		byHeader.Key = keyfunc.Header("X-API-Key")
		mh, err := middleware.New(limiter(t, newClock(), core.FixedWindow{Quota: 1, Window: time.Hour}), byHeader)
		require.NoError(t, err)
		mi, err := middleware.New(limiter(t, newClock(), core.FixedWindow{Quota: 1, Window: time.Hour}), opts)
		require.NoError(t, err)
		byTenant := opts
		byTenant.Key = keyfunc.Const("tenant") // the tier, not the key, is what fails
		mt, err := middleware.NewSelect(tiers, byTenant)
		require.NoError(t, err)
		for name, h := range map[string]http.Handler{"header key": mh.Handler(okHandler), "default key": mi.Handler(okHandler), "tiers": mt.Handler(okHandler)} {
			errs = nil
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.RemoteAddr = "@"
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			want := map[bool]int{true: http.StatusOK, false: http.StatusForbidden}[dry]
			assert.Equal(t, want, w.Code, "%s, DryRun %v", name, dry)
			assert.Len(t, errs, 1, "%s, DryRun %v: reported", name, dry)
			assert.Empty(t, w.Header().Get("X-RateLimit-Limit"), name)
		}
	}
}

// TestDryRunServesBadCost: a Cost below 1 under DryRun was answered 500,
// as without it, while a failing key or limiter is served: a shadow
// rollout of a Cost function that gives 0 to some requests failed them on
// live traffic (2 of 2, the default key's path and Options.Key's). It is
// reported to OnError and served; without DryRun it is answered 500.
func TestDryRunServesBadCost(t *testing.T) {
	t.Parallel()
	for _, dry := range []bool{true, false} {
		var errs []error
		opts := middleware.Options{DryRun: dry, Cost: func(*http.Request) int64 { return 0 },
			OnError: func(_ *http.Request, err error) { errs = append(errs, err) }}
		byHeader := opts
		byHeader.Key = keyfunc.Header("X-API-Key")
		mh, err := middleware.New(limiter(t, newClock(), core.FixedWindow{Quota: 1, Window: time.Hour}), byHeader)
		require.NoError(t, err)
		mi, err := middleware.New(limiter(t, newClock(), core.FixedWindow{Quota: 1, Window: time.Hour}), opts)
		require.NoError(t, err)
		for name, h := range map[string]http.Handler{"header key": mh.Handler(okHandler), "default key": mi.Handler(okHandler)} {
			errs = nil
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.Header.Set("X-API-Key", "k")
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			want := map[bool]int{true: http.StatusOK, false: http.StatusInternalServerError}[dry]
			assert.Equal(t, want, w.Code, "%s, DryRun %v", name, dry)
			require.Len(t, errs, 1, "%s, DryRun %v: reported", name, dry)
			assert.ErrorIs(t, errs[0], middleware.ErrInvalidCost, name)
		}
	}
}
