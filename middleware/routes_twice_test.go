package middleware_test

import (
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A pattern given to Add twice, with two limiters, was refused as a "route
// group named twice (by Add, or for another limiter)", naming a group the
// user of Add never made; it is now "route … added twice", as with one
// limiter, and a Share group clashing with an Add says which is which.
func TestRouteAddedTwiceSaysSo(t *testing.T) {
	t.Parallel()
	a := limiter(t, newClock(), core.GCRA{Rate: core.PerMinute(5)})
	b := limiter(t, newClock(), core.GCRA{Rate: core.PerMinute(100)})
	rt := middleware.NewRoutes(nil)
	require.NoError(t, rt.Add("POST /login", a))
	err := rt.Add("POST /login", b)
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	assert.ErrorContains(t, err, `route "POST /login" added twice`)

	rt = middleware.NewRoutes(nil)
	require.NoError(t, rt.Share("auth", a, "POST /login"))
	err = rt.Add("auth", b)
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	assert.ErrorContains(t, err, `"auth" names a Share group`)

	rt = middleware.NewRoutes(nil)
	require.NoError(t, rt.Add("POST /login", a))
	err = rt.Share("POST /login", a, "POST /signup")
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	assert.ErrorContains(t, err, `"POST /login" is a route given to Add`)
}
