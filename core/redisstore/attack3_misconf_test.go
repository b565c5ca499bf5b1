package redisstore_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackMisconfIsAFault: a Redis whose last RDB save failed (a full
// or lost disk) with save points set refuses every write with MISCONF
// (stop-writes-on-bgsave-error, on by default): a Redis that cannot write
// now, as with OOM or READONLY. FailLocal decides locally, FailClosed's
// error wraps ErrUnavailable, and the breaker opens; it was an "other"
// error reply: FailLocal failed every decision (a 503 for every request,
// never the local limit), FailClosed's error did not say unavailable, and
// every decision went on paying its round trip to a Redis refusing it.
func TestAttackMisconfIsAFault(t *testing.T) {
	t.Parallel()
	srv := redistest.Start(t, "--enable-protected-configs", "yes") // (CONFIG SET dir)
	c := srv.Client(t)
	ctx := context.Background()
	s, _ := faultStore(t, c, redisstore.Options{FailureMode: redisstore.FailLocal, LocalShare: 1, ProbeInterval: time.Hour, Timeout: noDeadline})
	l := faultLimiter(t, s, wide)
	_, err := l.Allow(ctx, "before")
	require.NoError(t, err)
	// The save fails: its directory is gone.
	dir := filepath.Join(t.TempDir(), "gone")
	require.NoError(t, os.Mkdir(dir, 0o700))
	require.NoError(t, c.ConfigSet(ctx, "save", "3600 1").Err())
	require.NoError(t, c.ConfigSet(ctx, "dir", dir).Err())
	require.NoError(t, os.Remove(dir))
	require.NoError(t, c.BgSave(ctx).Err())
	within.Until(t, "the save failed", func() bool {
		info, err := c.InfoMap(ctx, "persistence").Result()
		require.NoError(t, err)
		p := info["Persistence"]
		return p["rdb_bgsave_in_progress"] == "0" && p["rdb_last_bgsave_status"] == "err"
	})
	require.ErrorContains(t, c.Set(ctx, "x", "1", 0).Err(), "MISCONF", "Redis refuses writes")
	r, err := l.Allow(ctx, "after")
	require.NoError(t, err, "FailLocal decides locally")
	assert.True(t, r.Allowed)
	assert.True(t, s.Down(), "the breaker opened")
	assert.Positive(t, s.Stats().Faults)

	fc, _ := faultStore(t, c, redisstore.Options{Prefix: "closed:", ProbeInterval: time.Hour, Timeout: noDeadline})
	_, err = faultLimiter(t, fc, wide).Allow(ctx, "after")
	assert.ErrorIs(t, err, redisstore.ErrUnavailable, "FailClosed")
}
