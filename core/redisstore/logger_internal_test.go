package redisstore

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A store without a Logger logs to slog.Default() as it is when a line is
// logged: read once by New, a default set by slog.SetDefault after New was
// missed, and the store's lines reached it through package log's bridge,
// at INFO whatever their level. Not parallel: it sets the default logger.
func TestNilLoggerFollowsDefault(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	t.Cleanup(func() { _ = c.Close() })
	s, err := New(c, Options{})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })

	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })
	s.logger().Error("redisstore: a line")
	assert.Contains(t, buf.String(), "level=ERROR msg=\"redisstore: a line\"")
}
