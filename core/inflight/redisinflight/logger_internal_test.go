package redisinflight

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A limiter without a Logger logs to slog.Default() as it is when a line
// is logged, not as it was when New ran (see redisstore's
// TestNilLoggerFollowsDefault). Not parallel: it sets the default logger.
func TestNilLoggerFollowsDefault(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	t.Cleanup(func() { _ = c.Close() })
	l, err := New(c, 2, Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = l.Close() })

	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })
	l.logger().Error("redisinflight: a line")
	assert.Contains(t, buf.String(), "level=ERROR msg=\"redisinflight: a line\"")
}
