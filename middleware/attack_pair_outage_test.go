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

// outageRoutes returns a handler over an application whose "/api/" handler
// routes further (a router within it that strips slashes serves
// "/api/login/" as the login), limited by routes: "/api/" by failing (a
// store that is down) or by a healthy limiter of 1 an hour, and "POST
// /api/login" the other way round.
func outageRoutes(t *testing.T, apiDown bool, opts middleware.Options) (h http.Handler, hits *int) {
	t.Helper()
	healthy := limiter(t, newClock(), core.FixedWindow{Quota: 1, Window: time.Hour})
	var api, login middleware.Limiter = healthy, failing{}
	if apiDown {
		api, login = failing{}, healthy
	}
	rt := middleware.NewRoutes(nil)
	require.NoError(t, rt.Add("/api/", api))
	require.NoError(t, rt.Add("POST /api/login", login))
	m, err := middleware.NewSelect(rt, opts)
	require.NoError(t, err)
	hits = new(int)
	app := http.NewServeMux()
	app.HandleFunc("/api/", func(http.ResponseWriter, *http.Request) { *hits++ })
	return m.Handler(app), hits
}

// A request charged on two routes (a variant's and the served pattern's)
// one of whose limiters fails (its store is down) was served under
// FailOpen with nothing charged on the other, healthy one: the healthy
// route's limit, which its own requests are held to, did not hold for a
// variant spelling. "POST /api/login/" reached the "/api/" handler 3 of 3
// times with the login route (1/hour) healthy and "/api/" down, and with
// "/api/" (1/hour) healthy and the login route down. The healthy route
// now decides, as for its own requests: 1 of 3.
func TestAttackVariantEscapesTheHealthyRouteUnderFailOpen(t *testing.T) {
	for _, apiDown := range []bool{true, false} {
		h, hits := outageRoutes(t, apiDown, middleware.Options{FailOpen: true})
		codes := []int{}
		for range 3 {
			codes = append(codes, serve(h, "POST", "/api/login/", "192.0.2.1:1", nil))
		}
		assert.Equal(t, []int{200, 429, 429}, codes, "api down: %v", apiDown)
		assert.Equal(t, 1, *hits, "api down: %v", apiDown)
	}
}

// Failing closed, such a request is answered 503 and takes nothing from
// the healthy route: all or nothing.
func TestVariantOutageFailsClosedAllOrNothing(t *testing.T) {
	for _, apiDown := range []bool{true, false} {
		h, hits := outageRoutes(t, apiDown, middleware.Options{})
		for range 3 {
			assert.Equal(t, http.StatusServiceUnavailable, serve(h, "POST", "/api/login/", "192.0.2.1:1", nil), "api down: %v", apiDown)
		}
		assert.Equal(t, 0, *hits)
		healthyPath := "/api/y"
		if apiDown {
			healthyPath = "/api/login"
		}
		assert.Equal(t, 200, serve(h, "POST", healthyPath, "192.0.2.1:1", nil), "the healthy route's bucket is whole (api down: %v)", apiDown)
	}
}

// A request whose client went away while it was decided is neither served
// nor answered: what the healthy route took for it is given back.
func TestVariantOutageOfAGoneClientGivesBack(t *testing.T) {
	h, hits := outageRoutes(t, true, middleware.Options{FailOpen: true})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := httptest.NewRequestWithContext(ctx, "POST", "/api/login/", nil)
	r.RemoteAddr = "192.0.2.1:1"
	h.ServeHTTP(httptest.NewRecorder(), r)
	assert.Equal(t, 0, *hits)
	assert.Equal(t, 200, serve(h, "POST", "/api/login", "192.0.2.1:1", nil), "the login route's bucket is whole")
}
