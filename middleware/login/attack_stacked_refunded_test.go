package login_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/floodgate-go/floodgate/middleware/login"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A guard behind a rate limit of 1,000 a day (a burst of 7) that counts
// no refusal (Options.CountIf): the 7th failed attempt takes the rate
// limit's last unit, the guard throttles it (for 1 s), and the rate limit
// gives its unit back for the 429. Retry-After told the rate limit's next
// admission, 87 s, where a retry in 1 s passes both: the guard waited for a decision refunded for its answer,
// as the middleware's own refusals no longer do.
func TestAttackThrottledBehindARefundingLimitWaitsForNone(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(t0)
	h := guardBehindBurstOf7(t, clk, middleware.Options{CountIf: func(s int) bool { return s != http.StatusTooManyRequests }}, login.Options{})
	rec := seventhAttempt(t, h, http.StatusUnauthorized)
	require.Equal(t, http.StatusTooManyRequests, rec.Code)
	assert.Equal(t, "1", rec.Header().Get("Retry-After"), "the guard's wait: the rate limit's unit is given back")
	clk.Advance(time.Second)
	assert.Equal(t, http.StatusUnauthorized, serve(h, formRequest("alice", "bad", "192.0.2.1:1")).Code, "at Retry-After")
}
