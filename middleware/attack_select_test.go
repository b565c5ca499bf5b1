package middleware_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackZeroOverridesTierRefused: a zero core.Overrides (not made by
// NewOverrides) was accepted as a tier's limiter and failed at each
// request, which FailOpen served: 50 of 50 unlimited (found by an
// adversarial review). It is refused at construction, and a limiter that
// cannot decide (an error wrapping core.ErrInvalidConfig) is answered 500,
// never served by FailOpen.
func TestAttackZeroOverridesTierRefused(t *testing.T) {
	resolve := func(*http.Request) (string, error) { return "enterprise", nil }
	sel, err := middleware.Tiers(resolve, map[string]middleware.Limiter{"enterprise": &core.Overrides{}})
	if err == nil {
		m, err2 := middleware.NewSelect(sel, middleware.Options{FailOpen: true})
		if err2 == nil {
			h := m.Handler(okHandler)
			served := 0
			for i := 0; i < 50; i++ {
				if get(h, "192.0.2.1:1").Code == 200 {
					served++
				}
			}
			t.Logf("zero Overrides tier: %d/50 requests served unlimited under FailOpen", served)
		}
	}
	require.ErrorIs(t, err, core.ErrInvalidConfig, "Tiers must refuse a zero core.Overrides like a zero core.Limiter")
}

// TestZeroOverridesRefusedByNew: New refuses a zero core.Overrides as Tiers
// does.
func TestZeroOverridesRefusedByNew(t *testing.T) {
	_, err := middleware.New(&core.Overrides{}, middleware.Options{})
	require.ErrorIs(t, err, core.ErrInvalidConfig)
}

// TestAttackAPIKeyOrIPEmptyAnonymousKey: an anonymous key function giving
// "" was not refused under APIKeyOrIP, as under New: every such client
// shared the bucket "a", so one used up everyone's allowance (found by an
// adversarial review). It is refused now.
func TestAttackAPIKeyOrIPEmptyAnonymousKey(t *testing.T) {
	clk := newClock()
	keyed := limiter(t, clk, core.FixedWindow{Quota: 100, Window: time.Hour})
	anon := limiter(t, clk, core.FixedWindow{Quota: 2, Window: time.Hour})
	emptyKey := func(*http.Request) (string, error) { return "", nil }
	identify := func(*http.Request) (string, bool) { return "", false }
	m, err := middleware.APIKeyOrIP(identify, keyed, anon, middleware.Options{Key: emptyKey})
	require.NoError(t, err)
	h := m.Handler(okHandler)

	// Baseline: the same key function behind New is refused (403).
	plain, err := middleware.New(anon, middleware.Options{Key: emptyKey})
	require.NoError(t, err)
	assert.Equal(t, http.StatusForbidden, get(plain.Handler(okHandler), "192.0.2.9:1").Code, "New refuses an empty key")

	codes := []int{}
	for _, ip := range []string{"192.0.2.1:1", "192.0.2.1:1", "198.51.100.7:1"} {
		codes = append(codes, get(h, ip).Code)
	}
	// Expected: each request refused (403) as having no key. Observed:
	// 200, 200, then 429 for an unrelated client sharing bucket "a".
	assert.Equal(t, []int{403, 403, 403}, codes)
}

// TestRoutesEmptyGroupRefused: Share with an empty group name put its
// routes in the default's buckets (found by an adversarial review); it is
// refused.
func TestRoutesEmptyGroupRefused(t *testing.T) {
	clk := newClock()
	def := limiter(t, clk, core.FixedWindow{Quota: 1, Window: time.Hour})
	rt := middleware.NewRoutes(def)
	err := rt.Share("", def, "POST /login")
	if err != nil {
		return // refusing an empty group would be fine too
	}
	m, err := middleware.NewSelect(rt, middleware.Options{})
	require.NoError(t, err)
	h := m.Handler(okHandler)
	ip := "192.0.2.1:1"
	assert.Equal(t, 200, serve(h, "GET", "/anything", ip, nil))
	assert.Equal(t, 200, serve(h, "POST", "/login", ip, nil), "login must keep its own bucket, apart from the default's")
}

// TestTiersSharingALimiterCountApart: tiers given one limiter shared its
// buckets, though each tier keeps its own state (found by an adversarial
// review): a tenant moved from one to the other kept its count. A limiter
// of several tiers now keeps each tier's buckets apart.
func TestTiersSharingALimiterCountApart(t *testing.T) {
	clk := newClock()
	l := limiter(t, clk, core.FixedWindow{Quota: 1, Window: time.Hour})
	tier := "free"
	resolve := func(*http.Request) (string, error) { return tier, nil }
	sel, err := middleware.Tiers(resolve, map[string]middleware.Limiter{"free": l, "trial": l})
	require.NoError(t, err)
	m, err := middleware.NewSelect(sel, middleware.Options{Key: perIP(t)})
	require.NoError(t, err)
	h := m.Handler(okHandler)
	assert.Equal(t, 200, get(h, "192.0.2.1:1").Code)
	tier = "trial"
	assert.Equal(t, 200, get(h, "192.0.2.1:1").Code, "the new tier's state must be its own (fresh), as documented")
}

var _ = httptest.NewRecorder

// erringLimiter fails every decision with err.
type erringLimiter struct{ err error }

func (e erringLimiter) AllowN(context.Context, string, int64) (core.Result, error) {
	return core.Result{}, e.err
}

func (e erringLimiter) Refund(context.Context, string, core.Result) (core.Result, error) {
	return core.Result{}, e.err
}

// TestFailOpenServesOutagesNotMisconfiguration: FailOpen serves a request
// whose limiter failed like a store that is down, and never one whose
// limiter cannot decide at all (an error wrapping core.ErrInvalidConfig):
// that is answered 500, whatever FailOpen says.
func TestFailOpenServesOutagesNotMisconfiguration(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want int
	}{
		{fmt.Errorf("store down: %w", errors.New("connection refused")), http.StatusOK},
		{fmt.Errorf("no policy: %w", core.ErrInvalidConfig), http.StatusInternalServerError},
	} {
		m, err := middleware.New(erringLimiter{tc.err}, middleware.Options{FailOpen: true})
		require.NoError(t, err)
		w := httptest.NewRecorder()
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		m.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})).ServeHTTP(w, r)
		assert.Equal(t, tc.want, w.Code, tc.err.Error())
	}
}
