package login_test

import (
	"net/http"
	"net/http/httptest"
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
	h := guardBehindBurstOf7(t, coretest.NewClock(t0), middleware.Options{}, login.Options{})
	rec := seventhAttempt(t, h, http.StatusUnauthorized)
	require.Equal(t, http.StatusTooManyRequests, rec.Code)
	assert.Equal(t, "87", rec.Header().Get("Retry-After"))
}

// guardBehindBurstOf7 returns a guard of gopts on clk behind a middleware
// of mopts on a rate limit of 1,000 a day, a burst of 7.
func guardBehindBurstOf7(t *testing.T, clk *coretest.Clock, mopts middleware.Options, gopts login.Options) http.Handler {
	t.Helper()
	l, err := core.NewLimiter(core.MustPolicy("global", core.Limit{Name: "global",
		Algorithm: core.GCRA{Rate: core.Per(1000, 24*time.Hour), Burst: 7}}), core.WithClock(clk))
	require.NoError(t, err)
	m, err := middleware.New(l, mopts)
	require.NoError(t, err)
	return m.Handler(newGuard(t, clk, gopts).Handler(&app{}))
}

// seventhAttempt sends alice's failed attempts to h, the first six
// answered want, and returns the answer to the 7th, which takes the rate
// limit's last unit.
func seventhAttempt(t *testing.T, h http.Handler, want int) *httptest.ResponseRecorder {
	t.Helper()
	for i := 1; i <= 6; i++ {
		require.Equal(t, want, serve(h, formRequest("alice", "bad", "192.0.2.1:1")).Code, "attempt %d", i)
	}
	return serve(h, formRequest("alice", "bad", "192.0.2.1:1"))
}
