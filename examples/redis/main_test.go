package main

import (
	"context"
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
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		var out strings.Builder
		require.NoError(t, run(ctx, srv.Addr(), &out))
		cancel()
		assert.Equal(t, want, out.String())
	}
}

// TestRunNoRedis: an address nothing listens on is a one-line error.
func TestRunNoRedis(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := run(ctx, "127.0.0.1:1", &strings.Builder{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no Redis at 127.0.0.1:1")
}
