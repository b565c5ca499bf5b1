package redistest_test

import (
	"context"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/stretchr/testify/require"
)

// TestStartKill: a started server answers on loopback with persistence
// off; Kill stops its process; Restart brings it back on the same port.
func TestStartKill(t *testing.T) {
	s := redistest.Start(t)
	c := s.Client(t)
	ctx := context.Background()
	require.NoError(t, c.Ping(ctx).Err())
	host, _, err := net.SplitHostPort(s.Addr())
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1", host)
	require.Equal(t, "redis://"+s.Addr(), s.URL())
	cfg, err := c.ConfigGet(ctx, "appendonly").Result()
	require.NoError(t, err)
	require.Equal(t, "no", cfg["appendonly"])
	cfg, err = c.ConfigGet(ctx, "save").Result()
	require.NoError(t, err)
	require.Equal(t, "", cfg["save"])
	pid := s.PID()
	require.NotZero(t, pid)
	s.Kill()
	require.Zero(t, s.PID())
	require.ErrorIs(t, syscall.Kill(pid, 0), syscall.ESRCH, "the process is gone")
	ctx2, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	require.Error(t, c.Ping(ctx2).Err())
	s.Restart()
	require.NoError(t, c.Ping(ctx).Err())
}
