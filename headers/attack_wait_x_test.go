package headers_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/headers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Wait read no wait from X-RateLimit-*: behind a rate-limit middleware
// whose Writer omits the IETF fields (Omit: headers.IETF), a Concurrency
// refusal, a 503 or the login guard's answer after a request that took
// the limit's last unit (1 an hour) said 1 s (Wait 0), and a retry then
// was refused for an hour. Wait now reads X-RateLimit-Reset of a limit
// with nothing remaining, an instant, against the system clock, as the
// limiter's default clock is. (The limiter here decides on that clock;
// the bounds allow the test ten seconds.)
func TestAttackWaitReadsXRateLimit(t *testing.T) {
	t.Parallel()
	p, err := core.NewPolicy("hourly", core.Limit{Name: "hourly", Algorithm: core.GCRA{Rate: core.Per(1, time.Hour), Burst: 1}})
	require.NoError(t, err)
	l, err := core.NewLimiter(p)
	require.NoError(t, err)
	r, err := l.Allow(t.Context(), "user")
	require.NoError(t, err)
	require.True(t, r.Allowed)
	h := http.Header{}
	newWriter(t, headers.Options{Omit: headers.IETF}).Write(h, &r)
	require.Equal(t, "0", h.Get("X-RateLimit-Remaining"))
	wait := headers.Wait(h)
	assert.GreaterOrEqual(t, wait, int64(3590))
	assert.LessOrEqual(t, wait, int64(3601))
}
