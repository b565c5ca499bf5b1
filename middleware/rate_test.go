package middleware_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A valid Rate is a *core.Limiter of the policy the string describes.
func TestRateBuildsTheParsedPolicy(t *testing.T) {
	l := middleware.Rate("api", "burst: 10/s burst 20; daily: 10000/day fixed-window")
	cl, ok := l.(*core.Limiter)
	require.True(t, ok, "%T", l)
	assert.Equal(t, "api", cl.Policy().Name())
	assert.Equal(t, "burst: 10/s burst 20; daily: 10000/day fixed-window", cl.Policy().String())
}

// An invalid Rate is refused by every constructor given it, with the parse
// error (token and column) wrapping core.ErrInvalidConfig.
func TestInvalidRateIsRefusedAtConstruction(t *testing.T) {
	bad := middleware.Rate("api", "100/min brust 20")
	resolve := func(*http.Request) (string, error) { return "free", nil }
	for name, build := range map[string]func() error{
		"New":       func() error { _, err := middleware.New(bad, middleware.Options{}); return err },
		"NewRoutes": func() error { return middleware.NewRoutes(bad).Add("GET /x", middleware.Rate("x", "1/s")) },
		"Add":       func() error { return middleware.NewRoutes(nil).Add("POST /login", bad) },
		"Share":     func() error { return middleware.NewRoutes(nil).Share("g", bad, "/a", "/b") },
		"Tiers": func() error {
			_, err := middleware.Tiers(resolve, map[string]middleware.Limiter{"free": bad})
			return err
		},
		"APIKeyOrIP": func() error {
			_, err := middleware.APIKeyOrIP(func(*http.Request) (string, bool) { return "", false }, bad, middleware.Rate("a", "1/s"), middleware.Options{})
			return err
		},
	} {
		err := build()
		require.ErrorIs(t, err, core.ErrInvalidConfig, name)
		var pe *core.ParseError
		require.True(t, errors.As(err, &pe), name)
		assert.Equal(t, 9, pe.Column, name)
		assert.Contains(t, err.Error(), `rate "100/min brust 20" of "api"`, name)
		assert.Contains(t, err.Error(), `did you mean "burst"`, name)
	}
}

// A limiter option Rate cannot use is refused the same way, and the
// refused Limiter, used anyway, fails every decision: never an admission.
func TestInvalidRateFailsClosed(t *testing.T) {
	bad := middleware.Rate("api", "1/s", nil)
	_, err := middleware.New(bad, middleware.Options{})
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	res, err := bad.AllowN(context.Background(), "k", 1)
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	assert.False(t, res.Allowed)
	_, err = bad.Refund(context.Background(), "k", res)
	require.ErrorIs(t, err, core.ErrInvalidConfig)
}

// Per-route limits and tiers take rate strings through Rate, end to end.
func TestRateInRoutesAndTiers(t *testing.T) {
	clk := newClock()
	rt := middleware.NewRoutes(middleware.Rate("api", "3/min", core.WithClock(clk)))
	require.NoError(t, rt.Add("POST /login", middleware.Rate("login", "1/min", core.WithClock(clk))))
	m, err := middleware.NewSelect(rt, middleware.Options{})
	require.NoError(t, err)
	h := m.Handler(okHandler)
	codes := func(method, path string, n int) []int {
		var out []int
		for range n {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(method, path, nil))
			out = append(out, w.Code)
		}
		return out
	}
	assert.Equal(t, []int{200, 429}, codes(http.MethodPost, "/login", 2))
	assert.Equal(t, []int{200, 200, 200, 429}, codes(http.MethodGet, "/", 4))

	tiers, err := middleware.Tiers(func(r *http.Request) (string, error) { return r.Header.Get("X-Plan"), nil },
		map[string]middleware.Limiter{
			"free": middleware.Rate("free", "1/min", core.WithClock(clk)),
			"pro":  middleware.Rate("pro", "minute: 2/min; day: 1000/day fixed-window", core.WithClock(clk)),
		})
	require.NoError(t, err)
	m, err = middleware.NewSelect(tiers, middleware.Options{Key: perIP(t)})
	require.NoError(t, err)
	h = m.Handler(okHandler)
	plan := func(p string) int {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Header.Set("X-Plan", p)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code
	}
	assert.Equal(t, []int{200, 429, 200, 200, 429}, []int{plan("free"), plan("free"), plan("pro"), plan("pro"), plan("pro")})
}
