package config

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackClusterClientBounded: a store.redis of several addresses is a
// Cluster client, which the file built with go-redis's default
// ReadTimeout of 5 s: the store waited that long on connections a
// failover black-holed (TestAttackBlackholedEveryClient in
// core/redisstore). The file's client now reads and writes within the
// store's bound on a round trip, max(1 s, 4 × timeout), so the store
// sends with it as it is rather than with a client of its own beside it.
func TestAttackClusterClientBounded(t *testing.T) {
	for timeout, want := range map[string]time.Duration{"": time.Second, "timeout: 100ms": time.Second, "timeout: 2s": 8 * time.Second} {
		src := "store:\n  redis:\n    addresses: [127.0.0.1:1, 127.0.0.1:2]\n    " + timeout + "\npolicies: {api: 2/min}\ndefault: {policy: api}\n"
		l, err := Parse("test.yaml", []byte(src), Options{})
		require.NoError(t, err, timeout)
		c, ok := l.client.(*redis.ClusterClient)
		require.True(t, ok, "%T", l.client)
		assert.Equal(t, want, c.Options().ReadTimeout, timeout)
		assert.Equal(t, want, c.Options().WriteTimeout, timeout)
		assert.NoError(t, l.Close())
	}
}
