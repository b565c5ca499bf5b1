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

// TestConformanceCallerClock: the suite on one store (concurrent
// decisions of its limiters share round trips, as in service).
func TestConformanceCallerClock(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	c := srv.Client(t)
	s := newStore(t, c, redisstore.Options{CallerClock: true, ExpirySlack: time.Hour})
	coretest.Run(t, func(*testing.T) core.Store { return s })
	checkTTLs(t, c)
}

// TestConformanceNoFunctions: the suite on EVALSHA instead of FCALL, each
// decision a call of its own (main.lua, no batch calls). Its random parts
// are short (coretest.RunShort): the algorithms' Lua is the functions'
// one, which TestConformanceCallerClock checks at full length. Ten
// mutants of that Lua (a refund giving back too much, in step.lua and in
// each algorithm) failed exactly the same subtests of the full suite on
// EVALSHA, on the functions and on a Cluster; the short suite catches 8
// of them, and the package all 10 (TestConformanceCallerClock,
// TestDifferential). Mutants of what this configuration changes (costs or
// instants misread by main.lua; on a Cluster, a refund's marker key
// outside its hash slot, batch calls grouped across slots) are caught by
// the short suite as by the full one.
func TestConformanceNoFunctions(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	c := srv.Client(t)
	s := newStore(t, c, redisstore.Options{CallerClock: true, ExpirySlack: time.Hour, NoFunctions: true})
	coretest.RunShort(t, func(*testing.T) core.Store { return s })
	checkTTLs(t, c)
}

// checkTTLs requires every key in Redis (on each master of a Cluster) to
// have a TTL. One script lists the keys without one (PEXPIRETIME -1; -2, a
// key that expired since KEYS listed it, had one), where a round trip per
// key made this check cost more than the decisions of a differential test.
func checkTTLs(t *testing.T, c redis.UniversalClient) {
	t.Helper()
	ctx := context.Background()
	check := func(ctx context.Context, c redis.Cmdable) error {
		none, err := noTTL.Run(ctx, c, nil).StringSlice()
		if err == nil && len(none) > 0 {
			err = fmt.Errorf("%d keys have no TTL: %q", len(none), none[:min(len(none), 10)])
		}
		return err
	}
	if cc, ok := c.(*redis.ClusterClient); ok {
		require.NoError(t, cc.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error { return check(ctx, n) }))
		return
	}
	require.NoError(t, check(ctx, c))
}

var noTTL = redis.NewScript(`
local none = {}
for _, k in ipairs(redis.call('KEYS', '*')) do
  if redis.call('PEXPIRETIME', k) == -1 then none[#none + 1] = k end
end
return none`)
