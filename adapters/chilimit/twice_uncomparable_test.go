package chilimit_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/floodgate-go/floodgate/adapters/chilimit"
	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sliceLimiter is a limiter == cannot compare: a struct holding a slice.
type sliceLimiter struct {
	lims []middleware.Limiter
}

func (s sliceLimiter) AllowN(ctx context.Context, key string, cost int64) (core.Result, error) {
	return s.lims[0].AllowN(ctx, key, cost)
}

func (s sliceLimiter) Refund(ctx context.Context, key string, taken core.Result) (core.Result, error) {
	return s.lims[0].Refund(ctx, key, taken)
}

// funcLimiter is a limiter == cannot compare: a func.
type funcLimiter func(ctx context.Context, key string, cost int64) (core.Result, error)

func (f funcLimiter) AllowN(ctx context.Context, key string, cost int64) (core.Result, error) {
	return f(ctx, key, cost)
}

func (funcLimiter) Refund(_ context.Context, _ string, taken core.Result) (core.Result, error) {
	return taken, nil
}

// pick is a Selector picking lim for every request.
type pick struct{ lim middleware.Limiter }

func (p pick) Select(*http.Request, string) (middleware.Limiter, string, error) {
	return p.lim, "", nil
}

// A Selector picking a limiter == cannot compare (a struct holding a
// slice, a func), met twice on a request's way (the root router's Use and
// a sub-router's), charged the request twice: 4 requests at 4 an hour,
// the 3rd and 4th refused. The limiter picked both times is one value,
// and the request is charged once: 4 of 4. Two limiters of equal parts
// but each their own (a slice made afresh) are still two.
func TestTwiceUncomparableLimiterChargesOnce(t *testing.T) {
	t.Parallel()
	mk := map[string]func(*core.Limiter) middleware.Limiter{
		"slice": func(l *core.Limiter) middleware.Limiter { return sliceLimiter{[]middleware.Limiter{l}} },
		"func":  func(l *core.Limiter) middleware.Limiter { return funcLimiter(l.AllowN) },
	}
	for name, mkLim := range mk {
		m, err := middleware.NewSelect(pick{mkLim(fixed(t, 4))}, middleware.Options{})
		require.NoError(t, err)
		lim := chilimit.Limit(m)
		r := chi.NewRouter()
		r.Use(lim)
		r.Route("/api", func(s chi.Router) {
			s.Use(lim)
			s.Get("/x", func(http.ResponseWriter, *http.Request) {})
		})
		var codes []int
		for range 5 {
			codes = append(codes, from(r, http.MethodGet, "/api/x", "192.0.2.1:1"))
		}
		assert.Equal(t, []int{200, 200, 200, 200, 429}, codes, name)
	}
}

// byParam is a Selector picking, for a request chi has routed to a route
// of {id}, its limiter, and before (in the root router's Use) another.
type byParam struct{ before, routed middleware.Limiter }

func (p byParam) Select(r *http.Request, _ string) (middleware.Limiter, string, error) {
	if chi.URLParam(r, "id") != "" {
		return p.routed, "", nil
	}
	return p.before, "", nil
}

// Two limiters == cannot compare, closures of one function literal over
// two limiters, are two: a request the Selector gives the one outside and
// the other inside is charged on both (the inner one at 2 an hour refuses
// the 3rd request).
func TestTwiceUncomparableLimitersApartChargeBoth(t *testing.T) {
	t.Parallel()
	over := func(l *core.Limiter) middleware.Limiter {
		return funcLimiter(func(ctx context.Context, key string, cost int64) (core.Result, error) {
			return l.AllowN(ctx, key, cost)
		})
	}
	m, err := middleware.NewSelect(byParam{over(fixed(t, 100)), over(fixed(t, 2))}, middleware.Options{})
	require.NoError(t, err)
	lim := chilimit.Limit(m)
	r := chi.NewRouter()
	r.Use(lim)
	r.With(lim).Get("/items/{id}", func(http.ResponseWriter, *http.Request) {})
	assert.Equal(t, []int{200, 200, 429}, thrice(r, http.MethodGet, "/items/1"))
}
