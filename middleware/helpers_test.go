package middleware_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func limiter(t testing.TB, clk core.Clock, a core.Algorithm) *core.Limiter {
	t.Helper()
	p, err := core.Single("api", a)
	require.NoError(t, err)
	l, err := core.NewLimiter(p, core.WithClock(clk))
	require.NoError(t, err)
	return l
}

func handler(t testing.TB, lim middleware.Limiter, opts middleware.Options, next http.Handler) http.Handler {
	t.Helper()
	m, err := middleware.New(lim, opts)
	require.NoError(t, err)
	return m.Handler(next)
}

var okHandler = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })

func get(h http.Handler, remote string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.RemoteAddr = remote
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// failing is a limiter whose store is down.
type failing struct{}

var errDown = errors.New("store down")

func (failing) AllowN(context.Context, string, int64) (core.Result, error) {
	return core.Result{}, errDown
}

func (failing) Refund(context.Context, string, core.Result) (core.Result, error) {
	return core.Result{}, errDown
}

func newClock() *coretest.Clock { return coretest.NewClock(t0) }
