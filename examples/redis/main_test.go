package main

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRun runs the demo twice against a test redis-server: the output is
// the expected one both times (the limits are reset at the start).
func TestRun(t *testing.T) {
	timeout = 30 * time.Second // the demo's 1 s is one a loaded machine reaches
	srv := redistest.Start(t)
	want := `API: 5 per hour, burst 3 (GCRA), key "api-key-1":
  request 1: allowed, 2 remaining
  request 2: allowed, 1 remaining
  request 3: allowed, 0 remaining
  request 4: denied, retry in 12m0s
  request 5: denied, retry in 12m0s
Login failures: 2 free, then locked 1m, 2m, 4m... (Backoff), key "alice":
  request 1: allowed, 1 remaining
  request 2: allowed, 0 remaining
  request 3: allowed, 0 remaining
  request 4: denied, retry in 1m0s
  request 5: denied, retry in 1m0s
`
	for range 2 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a bound, never reached
		var out strings.Builder
		start := time.Now()
		require.NoError(t, run(ctx, srv.Addr(), &out))
		elapsed := time.Since(start)
		cancel()
		got, gotRetries := retries(t, out.String())
		wantText, wantRetries := retries(t, want)
		assert.Equal(t, wantText, got)
		// The demo decides on Redis TIME: a wait counts from the take that
		// set it, which was at most elapsed before the denial (and is
		// printed rounded to the second).
		require.Len(t, gotRetries, len(wantRetries))
		for i, w := range wantRetries {
			assert.LessOrEqual(t, gotRetries[i], w, "retry %d", i)
			assert.GreaterOrEqual(t, gotRetries[i], w-elapsed-time.Second/2, "retry %d", i)
		}
	}
}

var retryIn = regexp.MustCompile(`retry in (\S+)`)

// retries returns out with each "retry in <duration>" made "retry in ?",
// and the durations.
func retries(t *testing.T, out string) (string, []time.Duration) {
	t.Helper()
	var ds []time.Duration
	text := retryIn.ReplaceAllStringFunc(out, func(m string) string {
		d, err := time.ParseDuration(retryIn.FindStringSubmatch(m)[1])
		require.NoError(t, err, m)
		ds = append(ds, d)
		return "retry in ?"
	})
	return text, ds
}

// TestRunNoRedis: an address nothing listens on is a one-line error.
func TestRunNoRedis(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := run(ctx, "127.0.0.1:1", &strings.Builder{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no Redis at 127.0.0.1:1")
}
