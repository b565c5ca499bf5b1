package middleware_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/inflight"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackNilNextRefusedAtSetup: Handler(nil) — written as
// http.ListenAndServe(addr, nil) is, meaning the default ServeMux — and a
// typed nil next are refused when the handler chain is built, with an
// error wrapping core.ErrInvalidConfig that says what to give instead.
// Before, the chain built fine and every request panicked on a nil
// pointer (net/http logged it and dropped the connection), for every
// middleware of the package.
func TestAttackNilNextRefusedAtSetup(t *testing.T) {
	perIP, err := middleware.PerIP("100/min")
	require.NoError(t, err)
	routes, err := middleware.NewSelect(middleware.NewRoutes(middleware.Rate("api", "100/min")), middleware.Options{})
	require.NoError(t, err)
	slots, err := inflight.NewMemory(1, inflight.MemoryOptions{})
	require.NoError(t, err)
	conc, err := middleware.NewConcurrency(slots, middleware.ConcurrencyOptions{})
	require.NoError(t, err)
	for name, wrap := range map[string]func(http.Handler) http.Handler{
		"PerIP": perIP.Handler, "Routes": routes.Handler, "Concurrency": conc.Handler,
	} {
		for nextName, next := range map[string]http.Handler{
			"nil": nil, "nil *ServeMux": (*http.ServeMux)(nil), "nil HandlerFunc": http.HandlerFunc(nil),
		} {
			var h http.Handler
			func() {
				defer func() {
					err, _ := recover().(error)
					require.ErrorIs(t, err, core.ErrInvalidConfig, "%s(%s)", name, nextName)
					assert.ErrorContains(t, err, "http.DefaultServeMux", "%s(%s)", name, nextName)
				}()
				h = wrap(next)
			}()
			if h == nil {
				continue
			}
			assert.NotPanics(t, func() {
				h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/", nil))
			}, "%s(%s) panicked at a request", name, nextName)
		}
	}
}
