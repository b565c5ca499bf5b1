package middleware_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/require"
)

// tagged is a limiter used by value whose type is comparable but whose
// value is not (its tags field holds a slice): == on it, and a map keyed
// by it, panic.
type tagged struct {
	l    *core.Limiter
	tags any
}

func (g tagged) AllowN(ctx context.Context, key string, cost int64) (core.Result, error) {
	return g.l.AllowN(ctx, key, cost)
}

func (g tagged) Refund(ctx context.Context, key string, taken core.Result) (core.Result, error) {
	return g.l.Refund(ctx, key, taken)
}

// TestAttackUncomparableLimiterValues: limiters of a comparable type whose
// values cannot be compared are refused with an error by Routes.Share,
// and serve as tiers, where both checked the type alone and then panicked
// on the values (a map key, ==).
func TestAttackUncomparableLimiterValues(t *testing.T) {
	clk := newClock()
	mk := func() tagged {
		return tagged{limiter(t, clk, core.FixedWindow{Quota: 1, Window: time.Hour}), []string{"x"}}
	}
	rt := middleware.NewRoutes(nil)
	var err error
	require.NotPanics(t, func() { err = rt.Share("g", mk(), "/a", "/b") })
	require.ErrorIs(t, err, core.ErrInvalidConfig)

	var sel middleware.Selector
	require.NotPanics(t, func() {
		sel, err = middleware.Tiers(func(r *http.Request) (string, error) { return r.Header.Get("Plan"), nil },
			map[string]middleware.Limiter{"free": mk(), "pro": mk()})
	})
	require.NoError(t, err)
	m, err := middleware.NewSelect(sel, middleware.Options{Key: perIP(t)})
	require.NoError(t, err)
	h := m.Handler(okHandler)
	for i, want := range []int{200, 429} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = "192.0.2.1:1"
		r.Header.Set("Plan", "free")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		require.Equal(t, want, w.Code, "request %d", i)
	}
}
