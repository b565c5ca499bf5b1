package login_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A guard behind a rate limit of 1,000 a day (a burst of 7): the 7th
// failed attempt takes the rate limit's last unit and the guard throttles
// it (for 1 s). Retry-After was 605 s, when the rate limit is whole again,
// read from its fields; it is now 87 s, when it admits one more request,
// which the middleware tells the guard through the request's context.
func TestAttackThrottledBehindAnExhaustedLimitWaitsForItsNextAdmission(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(t0)
	l, err := core.NewLimiter(core.MustPolicy("global", core.Limit{Name: "global",
		Algorithm: core.GCRA{Rate: core.Per(1000, 24*time.Hour), Burst: 7}}), core.WithClock(clk))
	require.NoError(t, err)
	m, err := middleware.New(l, middleware.Options{})
	require.NoError(t, err)
	h := m.Handler(newGuard(t, clk, login.Options{}).Handler(&app{}))
	for i := 1; i <= 6; i++ {
		require.Equal(t, http.StatusUnauthorized, serve(h, formRequest("alice", "bad", "192.0.2.1:1")).Code, "attempt %d", i)
	}
	rec := serve(h, formRequest("alice", "bad", "192.0.2.1:1"))
	require.Equal(t, http.StatusTooManyRequests, rec.Code)
	assert.Equal(t, "87", rec.Header().Get("Retry-After"))
}
