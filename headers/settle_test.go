package headers_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/headers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Settle sets the reset of each binding limit with nothing remaining, in
// every draft of the default names, to the refusal's wait, and leaves
// those of limits that still admit, and fields it cannot read, as they are.
func TestSettle(t *testing.T) {
	t.Parallel()
	at := time.Unix(1767312000, 5e8)
	h := http.Header{
		"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"1767312864"},
		"Ratelimit-Remaining": {"0"}, "Ratelimit-Reset": {"864"},
		"Ratelimit": {"limit=10, remaining=0, reset=864"},
	}
	headers.Settle(h, 87, at)
	assert.Equal(t, []string{"1767312088"}, h["X-Ratelimit-Reset"], "at + 87 s, rounded up")
	assert.Equal(t, []string{"87"}, h["Ratelimit-Reset"])
	assert.Equal(t, []string{"limit=10, remaining=0, reset=87"}, h["Ratelimit"])
	kept := http.Header{
		"X-Ratelimit-Remaining": {"3"}, "X-Ratelimit-Reset": {"1767312864"},
		"Ratelimit-Remaining": {"0"}, "Ratelimit-Reset": {"soon"},
		"Ratelimit": {"limit=10, remaining=1, reset=864"},
	}
	want := kept.Clone()
	headers.Settle(kept, 87, at)
	headers.Settle(h, 0, at)
	assert.Equal(t, want, kept)
	assert.Equal(t, []string{"87"}, h["Ratelimit-Reset"], "a wait below 1 changes nothing")
}

// Settle makes no draft 11 item with nothing remaining wait longer than
// the refusal, and leaves the others (a shorter wait, a limit that still
// admits) as they are.
func TestSettleList11(t *testing.T) {
	t.Parallel()
	h := http.Header{"Ratelimit": {`"global";r=0;t=864;pk=:YWJj:, "route";r=0;t=10, "day";r=5;t=900`}}
	headers.Settle(h, 87, time.Unix(1767312000, 0))
	assert.Equal(t, []string{`"global";r=0;t=87;pk=:YWJj:, "route";r=0;t=10, "day";r=5;t=900`}, h["Ratelimit"])
}

// Settle given no instant (the zero Time, the At of a Result no
// core.Limiter made) set X-RateLimit-Reset to the wait after year 1, a
// negative Unix time (-6795364573 for 5 s). It reads the system clock
// instead, as HeldWait reads no instant then: the reset is the wait from
// now, never before it.
func TestSettleWithoutInstant(t *testing.T) {
	t.Parallel()
	for _, at := range []time.Time{{}, time.Unix(0, 0), time.Unix(-5, 0)} {
		h := http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"1767312864"}}
		before := time.Now().Unix()
		headers.Settle(h, 5, at)
		reset, err := strconv.ParseInt(h.Get("X-Ratelimit-Reset"), 10, 64)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, reset, before+5, "at %v", at)
	}
}
