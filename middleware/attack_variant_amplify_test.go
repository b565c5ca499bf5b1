package middleware_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// storeCalls is a Limiter counting the calls it is given: each a round
// trip to the store on Redis.
type storeCalls struct {
	l *core.Limiter
	n *int
}

func (c *storeCalls) AllowN(ctx context.Context, k string, cost int64) (core.Result, error) {
	*c.n++
	return c.l.AllowN(ctx, k, cost)
}

func (c *storeCalls) Refund(ctx context.Context, k string, taken core.Result) (core.Result, error) {
	*c.n++
	return c.l.Refund(ctx, k, taken)
}

// selects counts the calls of a Selector wrapping Routes, per tenant.
type selects struct {
	rt *middleware.Routes
	n  *int
}

func (s selects) Select(r *http.Request, route string) (middleware.Limiter, string, error) {
	*s.n++
	l, scope, err := s.rt.Select(r, route)
	return l, "tenant/" + scope, err
}

// "post /api/login/" is charged on three routes: "POST /api/login" (its
// canonical method, its slash dropped), "/api/login" (its method as
// written) and "/api/" (the subtree serving it). Once the client had
// spent its login route, each such request was admitted by the two
// others, denied by the login route and given back on the two: 5 store
// calls for a request the canonical spelling had denied in 1. Now 1, and
// a wrapping Selector is asked at most once per route and once more.
func TestAttackVariantSpellingsAmplifyStoreCalls(t *testing.T) {
	clk := newClock()
	var calls, sels int
	lim := func(q int64) *storeCalls {
		return &storeCalls{limiter(t, clk, core.FixedWindow{Quota: q, Window: time.Hour}), &calls}
	}
	rt := middleware.NewRoutes(lim(100))
	require.NoError(t, rt.Add("/api/", lim(100)))
	require.NoError(t, rt.Add("POST /api/login", lim(3)))
	require.NoError(t, rt.Add("/api/login", lim(100)))
	m, err := middleware.NewSelect(selects{rt, &sels}, middleware.Options{})
	require.NoError(t, err)
	app := http.NewServeMux()
	app.HandleFunc("/", func(http.ResponseWriter, *http.Request) {})
	h := m.Handler(app)
	send := func(method, path string) (code, storeN, selN int) {
		calls, sels = 0, 0
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Method, r.URL.Path, r.RemoteAddr = method, path, "192.0.2.9:1"
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Code, calls, sels
	}
	for range 3 {
		code, n, s := send("POST", "/api/login")
		require.Equal(t, 200, code)
		assert.Equal(t, 1, n)
		assert.Equal(t, 1, s)
	}
	code, n, _ := send("POST", "/api/login")
	require.Equal(t, 429, code)
	assert.Equal(t, 1, n, "the canonical spelling's denial")
	for i := range 5 {
		code, n, s := send("post", "/api/login/")
		require.Equal(t, 429, code)
		assert.LessOrEqual(t, s, 4, "the Selector: once, then once per route")
		if i > 0 {
			assert.Equal(t, 1, n, "variant request %d: store calls", i)
		}
	}
}
