package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every constructor refuses what would fail at the first request — nil,
// typed nil, zero values — with an error wrapping core.ErrInvalidConfig.
func TestConstructorsRefuseNilAndZero(t *testing.T) {
	good := limiter(t, newClock(), core.GCRA{Rate: core.PerSecond(1)})
	var nilLimiter middleware.Limiter
	typedNil := (*core.Limiter)(nil)
	zero := &core.Limiter{}
	resolve := func(*http.Request) (string, error) { return "free", nil }
	for name, build := range map[string]func() error{
		"New(nil)":        func() error { _, err := middleware.New(nilLimiter, middleware.Options{}); return err },
		"New(typed nil)":  func() error { _, err := middleware.New(typedNil, middleware.Options{}); return err },
		"New(zero)":       func() error { _, err := middleware.New(zero, middleware.Options{}); return err },
		"New(bad option)": func() error { _, err := middleware.New(good, middleware.Options{MaxDelay: -1}); return err },
		"NewSelect(nil)":  func() error { _, err := middleware.NewSelect(nil, middleware.Options{}); return err },
		"NewSelect(typed nil Routes)": func() error {
			_, err := middleware.NewSelect((*middleware.Routes)(nil), middleware.Options{})
			return err
		},
		"NewSelect(One(nil))": func() error { _, err := middleware.NewSelect(middleware.One(nil), middleware.Options{}); return err },
		"NewSelect(One(typed nil))": func() error {
			_, err := middleware.NewSelect(middleware.One(typedNil), middleware.Options{})
			return err
		},
		"NewSelect(One(zero))": func() error { _, err := middleware.NewSelect(middleware.One(zero), middleware.Options{}); return err },
		"NewSelect(NewRoutes(typed nil))": func() error {
			_, err := middleware.NewSelect(middleware.NewRoutes(typedNil), middleware.Options{})
			return err
		},
		"NewRoutes(zero).Add": func() error { return middleware.NewRoutes(zero).Add("GET /x", good) },
		"Routes.Add(nil)":     func() error { return middleware.NewRoutes(nil).Add("GET /x", nilLimiter) },
		"Routes.Add(typed nil)": func() error {
			return middleware.NewRoutes(nil).Add("GET /x", typedNil)
		},
		"Routes.Add(zero)":         func() error { return middleware.NewRoutes(nil).Add("GET /x", zero) },
		"Routes.Add(bad pattern)":  func() error { return middleware.NewRoutes(nil).Add("GET /{", good) },
		"Routes.Add(no path)":      func() error { return middleware.NewRoutes(nil).Add("GET ", good) },
		"Routes.Share(no pattern)": func() error { return middleware.NewRoutes(nil).Share("g", good) },
		"Routes.Share(NUL group)":  func() error { return middleware.NewRoutes(nil).Share("g\x00", good, "/x") },
		"(*Routes)(nil).Add":       func() error { return (*middleware.Routes)(nil).Add("GET /x", good) },
		"Tiers(nil resolver)":      func() error { _, err := middleware.Tiers(nil, map[string]middleware.Limiter{"free": good}); return err },
		"Tiers(no tier)":           func() error { _, err := middleware.Tiers(resolve, nil); return err },
		"Tiers(typed nil limiter)": func() error {
			_, err := middleware.Tiers(resolve, map[string]middleware.Limiter{"free": typedNil})
			return err
		},
		"Tiers(zero limiter)": func() error {
			_, err := middleware.Tiers(resolve, map[string]middleware.Limiter{"free": zero})
			return err
		},
		"Validate(nil *Middleware)": func() error { return (*middleware.Middleware)(nil).Validate() },
		"Validate(zero Middleware)": func() error { return new(middleware.Middleware).Validate() },
	} {
		assert.ErrorIs(t, build(), core.ErrInvalidConfig, name)
	}

	m, err := middleware.New(good, middleware.Options{})
	require.NoError(t, err)
	require.NoError(t, m.Validate())
}

// A zero Middleware panics when its handler chain is built, at start-up,
// and answers 500 rather than panicking if Begin is called on it.
func TestZeroMiddlewareFailsAtSetup(t *testing.T) {
	var m middleware.Middleware
	assert.PanicsWithError(t, "middleware: nil or zero *Middleware, not made by New or NewSelect: "+core.ErrInvalidConfig.Error(), func() {
		m.Handler(okHandler)
	})
	w := httptest.NewRecorder()
	_, ok := m.Begin(w, httptest.NewRequest("GET", "/", nil), "")
	assert.False(t, ok)
	assert.Equal(t, http.StatusInternalServerError, w.Code)
	var nilM *middleware.Middleware
	w = httptest.NewRecorder()
	_, ok = nilM.Begin(w, httptest.NewRequest("GET", "/", nil), "")
	assert.False(t, ok)
	assert.Equal(t, http.StatusInternalServerError, w.Code)
}

// The Routes default limiter given as nil (no default) is allowed.
func TestRoutesNilDefaultIsNoDefault(t *testing.T) {
	rt := middleware.NewRoutes(nil)
	require.NoError(t, rt.Add("GET /x", limiter(t, newClock(), core.FixedWindow{Quota: 1, Window: time.Hour})))
	_, err := middleware.NewSelect(rt, middleware.Options{})
	require.NoError(t, err)
}

// TestRouteErrorsAreSticky: a route whose Add failed, its error ignored,
// never leaves the middleware running without it: later Adds and NewSelect
// report the first error.
func TestRouteErrorsAreSticky(t *testing.T) {
	rt := middleware.NewRoutes(middleware.Rate("api", "100/min"))
	first := rt.Add("POST /login", middleware.Rate("login", "5/15mn"))
	require.Error(t, first)
	_ = rt.Add("GET /login{", middleware.Rate("login-page", "5/min")) // a bad pattern too: still the first error
	require.Equal(t, first, rt.Add("GET /ok", middleware.Rate("ok", "5/min")))
	_, err := middleware.NewSelect(rt, middleware.Options{})
	require.ErrorIs(t, err, first)
}

// A zero Routes (a composite literal, not NewRoutes) is refused when the
// middleware is made, and its Add and Share fail with an error naming the
// mistake; a request it is asked about anyway is refused, never served.
// Before, NewSelect accepted it and every request panicked in ServeMux
// matching (a nil *http.ServeMux); Add failed with "runtime error: invalid
// memory address or nil pointer dereference", or panicked on a nil map
// for a pattern in a router's syntax ("POST /users/:id").
func TestZeroRoutesRefusedAtSetup(t *testing.T) {
	_, err := middleware.NewSelect(&middleware.Routes{}, middleware.Options{})
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "NewRoutes")
	for _, p := range []string{"POST /login", "POST /users/:id"} {
		var rt middleware.Routes
		var err error
		require.NotPanics(t, func() { err = rt.Add(p, middleware.Rate("login", "5/min")) }, p)
		require.ErrorIs(t, err, core.ErrInvalidConfig, p)
		assert.Contains(t, err.Error(), "NewRoutes", p)
	}
	var rt middleware.Routes
	var lim middleware.Limiter
	require.NotPanics(t, func() { lim, _, err = rt.Select(httptest.NewRequest("GET", "/", nil), "") })
	assert.Nil(t, lim)
	require.ErrorIs(t, err, core.ErrInvalidConfig)
}
