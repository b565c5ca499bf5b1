package redistest

import (
	"context"
	"syscall"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// used runs use on a server of its own subtest and returns the server's
// PID, with the server back in the pool when the subtest passed and left
// it reusable.
func used(t *testing.T, use func(t *testing.T, s *Server, c *redis.Client)) int {
	t.Helper()
	var pid int
	t.Run("use", func(t *testing.T) {
		s := Start(t)
		pid = s.PID()
		use(t, s, s.Client(t))
	})
	return pid
}

// TestPoolReusesAnEmptiedServer: a server that a passing test leaves as it
// was started goes to the next test emptied: no key, no function, no
// cached script, no client of the last test, statistics reset.
func TestPoolReusesAnEmptiedServer(t *testing.T) {
	if !pooling {
		t.Skip("no pool outside Linux")
	}
	ctx := context.Background()
	pid := used(t, func(t *testing.T, _ *Server, c *redis.Client) {
		require.NoError(t, c.Set(ctx, "k", "v", 0).Err())
		require.NoError(t, c.Set(ctx, "ttl", "v", 100_000_000_000).Err())
		require.NoError(t, c.Do(ctx, "SELECT", "0").Err())
		require.NoError(t, c.FunctionLoad(ctx, "#!lua name=lib\nredis.register_function('f', function() return 1 end)").Err())
		require.NoError(t, c.ScriptLoad(ctx, "return 2").Err())
		require.NoError(t, c.Do(ctx, "CLIENT", "PAUSE", "100000", "WRITE").Err())
		require.Error(t, c.Do(ctx, "NOSUCHCOMMAND").Err())
	})
	s := Start(t)
	require.Equal(t, pid, s.PID(), "the server is reused")
	c := s.Client(t)
	n, err := c.DBSize(ctx).Result()
	require.NoError(t, err)
	assert.Zero(t, n, "no key")
	libs, err := c.FunctionList(ctx, redis.FunctionListQuery{}).Result()
	require.NoError(t, err)
	assert.Empty(t, libs, "no function")
	exists, err := c.ScriptExists(ctx, "7f923f79fe76194c868d7e1d0820de36700eb649").Result() // sha1("return 2")
	require.NoError(t, err)
	assert.Equal(t, []bool{false}, exists, "no cached script")
	info, err := c.InfoMap(ctx, "commandstats", "clients").Result()
	require.NoError(t, err)
	for _, cmd := range []string{"set", "function|load", "script|load", "client|pause"} {
		assert.Empty(t, info["Commandstats"]["cmdstat_"+cmd], "commandstats reset")
	}
	assert.Equal(t, "1", info["Clients"]["connected_clients"], "only this test's client")
	require.NoError(t, c.Set(ctx, "k", "w", 0).Err(), "writes are not paused")
}

// TestPoolSpoiled: a server whose test changed its configuration or its
// users, saved it, killed or signalled it is not reused.
func TestPoolSpoiled(t *testing.T) {
	if !pooling {
		t.Skip("no pool outside Linux")
	}
	ctx := context.Background()
	for name, use := range map[string]func(t *testing.T, s *Server, c *redis.Client){
		"config": func(t *testing.T, _ *Server, c *redis.Client) {
			require.NoError(t, c.ConfigSet(ctx, "maxmemory-policy", "allkeys-lru").Err())
		},
		"user": func(t *testing.T, _ *Server, c *redis.Client) {
			require.NoError(t, c.Do(ctx, "ACL", "SETUSER", "other", "on", "nopass", "+@all", "~*").Err())
		},
		"save": func(t *testing.T, _ *Server, c *redis.Client) {
			require.Error(t, c.Save(ctx).Err(), "its directory is gone")
		},
		"killed": func(_ *testing.T, s *Server, _ *redis.Client) { s.Kill(); s.Restart() },
		"signalled": func(_ *testing.T, s *Server, _ *redis.Client) {
			s.Signal(syscall.SIGSTOP)
			s.Signal(syscall.SIGCONT)
		},
	} {
		t.Run(name, func(t *testing.T) {
			pid := used(t, use)
			s := Start(t)
			assert.NotEqual(t, pid, s.PID(), "a new server")
		})
	}
}
