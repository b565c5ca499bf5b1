package redisstore

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestFirstRoundTripChoosesThePath: the first answered round trip of a
// store that ran no Check makes it treat the link as slow (decisions go
// through the pipeline workers, whose late replies keep their
// connections) at once, not after 32 round trips; being provisional (it
// may include a handshake), it is not judged against Timeout: no
// SlowLink, no log line, until a whole period is measured.
func TestFirstRoundTripChoosesThePath(t *testing.T) {
	t.Parallel()
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	t.Cleanup(func() { _ = c.Close() })
	logs := &countHandler{}
	s, err := New(c, Options{Timeout: 100 * time.Millisecond, Logger: slog.New(logs)})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	require.False(t, s.slow(), "nothing measured yet")

	s.observeRTT(130*time.Millisecond, false) // 40 ms and a handshake
	require.True(t, s.slow(), "a first round trip above Timeout/4 makes the link slow at once")
	require.False(t, s.Stats().SlowLink, "a provisional figure is not judged against Timeout")
	require.Zero(t, logs.n)

	for range 31 {
		s.observeRTT(40*time.Millisecond, false)
	}
	st := s.Stats()
	require.Equal(t, 40*time.Millisecond, st.RTT, "the period's shortest")
	require.False(t, st.SlowLink)
	require.True(t, s.slow(), "40 ms is a sizeable part of 100 ms")
	for range 32 {
		s.observeRTT(2*time.Millisecond, false)
	}
	require.False(t, s.slow(), "a fast link again")
	require.Zero(t, logs.n)
}

// countHandler counts the records logged.
type countHandler struct{ n int }

func (h *countHandler) Enabled(context.Context, slog.Level) bool  { return true }
func (h *countHandler) Handle(context.Context, slog.Record) error { h.n++; return nil }
func (h *countHandler) WithAttrs([]slog.Attr) slog.Handler        { return h }
func (h *countHandler) WithGroup(string) slog.Handler             { return h }
