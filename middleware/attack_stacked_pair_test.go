package middleware_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// noPeek is a limiter of the application's own deciding by a core one:
// it cannot be peeked.
type noPeek struct{ l *core.Limiter }

func (n noPeek) AllowN(ctx context.Context, key string, cost int64) (core.Result, error) {
	return n.l.AllowN(ctx, key, cost)
}

func (n noPeek) Refund(ctx context.Context, key string, taken core.Result) (core.Result, error) {
	return n.l.Refund(ctx, key, taken)
}

// An outer middleware charging a request on two routes (a Pair) took the
// last unit of both, one route's limit whole again in 10 s, the other's
// in a minute; the inner middleware refused the request. The Pair cannot
// be peeked (a route's limiter is the application's own), and the wait
// fell back to the reset of the limits the admission exhausted, read from
// the Pair's Result, which is one route's: the one it shows, of 10 s. A
// retry then was refused by the other route for 50 s more. The fallback
// now covers the exhausted limits of every route.
func TestAttackStackedPairFallbackWaitsForEveryRoute(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC))
	fixed := func(quota int64, w time.Duration) *core.Limiter {
		l, err := core.NewLimiter(core.MustPolicy("p", core.Limit{Name: "p",
			Algorithm: core.FixedWindow{Quota: quota, Window: w}}), core.WithClock(clk))
		require.NoError(t, err)
		return l
	}
	for _, foreignLonger := range []bool{true, false} {
		short, long := fixed(1, 10*time.Second), fixed(1, time.Minute)
		var api, login middleware.Limiter = short, noPeek{long}
		if !foreignLonger {
			api, login = noPeek{short}, long
		}
		rt := middleware.NewRoutes(nil)
		require.NoError(t, rt.Add("/api/", api))
		require.NoError(t, rt.Add("POST /api/login", login))
		outer, err := middleware.NewSelect(rt, middleware.Options{})
		require.NoError(t, err)
		spent := fixed(1, 5*time.Second)
		_, err = spent.AllowN(context.Background(), "client", 1)
		require.NoError(t, err)
		inner, err := middleware.New(spent, middleware.Options{Key: func(*http.Request) (string, error) { return "client", nil }})
		require.NoError(t, err)
		app := http.NewServeMux()
		app.Handle("/api/", inner.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})))
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "/api/login/", nil)
		outer.Handler(app).ServeHTTP(rec, req)
		require.Equal(t, http.StatusTooManyRequests, rec.Code)
		assert.Equal(t, "60", rec.Header().Get("Retry-After"), "the foreign route's the longer: %v", foreignLonger)
	}
}
