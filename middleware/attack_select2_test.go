package middleware_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRoutesGroupNamedLikeAnAddedRouteRefused: a Share group named like a
// pattern given to Add merged the two routes' buckets (found by an
// adversarial review); it is refused.
func TestRoutesGroupNamedLikeAnAddedRouteRefused(t *testing.T) {
	clk := newClock()
	l := limiter(t, clk, core.FixedWindow{Quota: 1, Window: time.Hour})
	rt := middleware.NewRoutes(nil)
	require.NoError(t, rt.Add("POST /login", l))
	err := rt.Share("POST /login", l, "GET /search")
	if err != nil {
		return // refusing the clash would be fine
	}
	m, err := middleware.NewSelect(rt, middleware.Options{})
	require.NoError(t, err)
	h := m.Handler(okHandler)
	ip := "192.0.2.1:1"
	assert.Equal(t, 200, serve(h, "GET", "/search", ip, nil))
	assert.Equal(t, 200, serve(h, "POST", "/login", ip, nil), "GET /search exhausted POST /login's bucket")
}

type typedNilSel struct{}

func (typedNilSel) SelectKey(*http.Request, string) (middleware.Limiter, string, error) {
	return (*core.Limiter)(nil), "x", nil
}

// TestAttackKeySelectorTypedNil: a typed nil limiter from a KeySelector
// failed at each request, which FailOpen served unlimited (found by an
// adversarial review); it is refused now, never served.
func TestAttackKeySelectorTypedNil(t *testing.T) {
	m, err := middleware.NewKeyed(typedNilSel{}, middleware.Options{FailOpen: true})
	require.NoError(t, err)
	// A configuration error (typed-nil limiter) is no store outage:
	// FailOpen must not serve it unlimited.
	for i := 0; i < 20; i++ {
		require.NotEqual(t, 200, get(m.Handler(okHandler), "192.0.2.1:1").Code, "request %d served unlimited", i)
	}
}
