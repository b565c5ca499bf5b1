package redisstore_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

var storeSeq atomic.Int64

// newStore returns a store on c, closed at cleanup, its keys under a prefix
// of the test's own.
func newStore(t testing.TB, c redis.UniversalClient, opts redisstore.Options) *redisstore.Store {
	t.Helper()
	if opts.Prefix == "" {
		opts.Prefix = fmt.Sprintf("fg:%s:%d:", t.Name(), storeSeq.Add(1))
	}
	if opts.Timeout == 0 {
		// A bound no loaded machine reaches: a test that is not about
		// timeouts must not fail because a decision was slow.
		opts.Timeout = 30 * time.Second
	}
	s, err := redisstore.New(c, opts)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformanceCallerClock(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	c := srv.Client(t)
	coretest.Run(t, func(t *testing.T) core.Store {
		return newStore(t, c, redisstore.Options{CallerClock: true, ExpirySlack: time.Hour})
	})
	checkTTLs(t, c)
}

// TestConformanceNoFunctions: the suite on EVALSHA instead of FCALL.
func TestConformanceNoFunctions(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	c := srv.Client(t)
	coretest.Run(t, func(t *testing.T) core.Store {
		return newStore(t, c, redisstore.Options{CallerClock: true, ExpirySlack: time.Hour, NoFunctions: true})
	})
	checkTTLs(t, c)
}

// checkTTLs requires every key in Redis to have a TTL (PEXPIRETIME -1
// means none; -2, a key that expired since KEYS listed it, had one).
func checkTTLs(t *testing.T, c redis.UniversalClient) {
	t.Helper()
	ctx := context.Background()
	keys, err := c.Keys(ctx, "*").Result()
	require.NoError(t, err)
	for _, k := range keys {
		exp, err := c.PExpireTime(ctx, k).Result()
		require.NoError(t, err)
		require.NotEqual(t, time.Duration(-1), exp, "key %s has no TTL", k)
	}
}
