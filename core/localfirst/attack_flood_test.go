package localfirst_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/localfirst"
	"github.com/floodgate-go/floodgate/internal/faultproxy"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// floodCycles drives the key-flood attacks below on one node of MaxKeys
// 16 deciding a FixedWindow of 10 a minute, Redis up: five times within
// one window, the victim takes until denied, a round runs, a flood of
// 2 × MaxKeys distinct keys each takes per units, and a round runs. It
// returns what the victim was admitted and how many of the cycles ended
// with the victim evicted.
func floodCycles(t *testing.T, prefix string, per int) (admitted, evicted int) {
	t.Helper()
	_, client := startRedis(t)
	clk := coretest.NewClock(t0)
	p := core.MustPolicy("f", core.Limit{Name: "f", Algorithm: core.FixedWindow{Quota: 10, Window: time.Minute}})
	const maxKeys = 16
	n := newNodes(t, client, clk, p, 1, localfirst.Options{MaxKeys: maxKeys, Prefix: prefix})[0]
	ctx := context.Background()
	flood := 0
	for range 5 {
		admitted += takeAll(t, n, "victim", 100)
		require.NoError(t, n.s.Sync(ctx))
		for range 2 * maxKeys {
			takeAll(t, n, fmt.Sprint("other-", flood), per)
			flood++
		}
		if !localfirst.Indexed(n.s, "victim") {
			evicted++
		}
		require.NoError(t, n.s.Sync(ctx))
		clk.Advance(time.Second)
	}
	return admitted, evicted
}

// TestAttackKeyFloodKeepsExhaustedLimit: a flood of single requests on
// distinct keys must not erase an exhausted key's count. Before, a full
// shard replaced an arbitrary entry, and the victim, returning as a key
// new to the node, decided on a confirmed total of 0: 50 admissions in
// one window of limit 10 (one node, a round per cycle). Now a full shard
// evicts the entry whose forgetting admits least, as the in-memory store
// does: the flood's keys (one unit each), never the victim (ten).
func TestAttackKeyFloodKeepsExhaustedLimit(t *testing.T) {
	t.Parallel()
	admitted, evicted := floodCycles(t, "flood1:", 1)
	assert.Equal(t, 10, admitted, "one node admits the limit, flood or not")
	assert.Zero(t, evicted, "the victim costs more to forget than any flood key")
}

// TestAttackCostlyKeyFloodKeepsExhaustedLimit: a flood of keys that each
// spend their whole limit costs as much to forget as the victim, which is
// then evicted; it must still not get its limit back. Before, each
// eviction handed it a fresh ⌊Limit/Nodes⌋ (a new key on a total of 0).
// Now the shard keeps the evicted entry (its limbo) or remembers the
// forgotten key until its window ends: returning, the victim decides on
// its kept entry, or admits nothing until a round has read its count back
// from Redis.
func TestAttackCostlyKeyFloodKeepsExhaustedLimit(t *testing.T) {
	t.Parallel()
	admitted, evicted := floodCycles(t, "flood10:", 10)
	assert.Equal(t, 10, admitted, "one node admits the limit, flood or not")
	assert.Positive(t, evicted, "the flood evicts the victim")
}

// TestAttackForgottenKeyKeepsItsCount: a key forgotten before its window
// ended (evicted, then dropped from the shard's limbo) decides on its
// return as on a stale view whose confirmed count is what it counted,
// until a round reads its count back. Before, it returned as a new key on
// a count of 0: its whole limit again.
func TestAttackForgottenKeyKeepsItsCount(t *testing.T) {
	t.Parallel()
	_, client := startRedis(t)
	clk := coretest.NewClock(t0)
	p := core.MustPolicy("w", core.Limit{Name: "w", Algorithm: core.FixedWindow{Quota: 10, Window: time.Minute}})
	n := newNodes(t, client, clk, p, 1, localfirst.Options{MaxKeys: 16, Prefix: "forgot:"})[0]
	ctx := context.Background()
	require.Equal(t, 4, takeAll(t, n, "victim", 4))
	require.NoError(t, n.s.Sync(ctx))
	// Keys that cost more to forget (5 units each) than the victim (4)
	// until it is evicted, then until the limbo (4 entries) drops it.
	for i := 0; i < 100 && localfirst.Indexed(n.s, "victim"); i++ {
		takeAll(t, n, fmt.Sprint("other-", i), 5)
	}
	for i := range 8 {
		takeAll(t, n, fmt.Sprint("more-", i), 5)
	}
	assert.Equal(t, 6, takeAll(t, n, "victim", 100), "10 less the 4 it counted")
	require.NoError(t, n.s.Sync(ctx))
	assert.Zero(t, takeAll(t, n, "victim", 100), "Redis holds 10")
}

// TestAttackOutageKeyFloodBoundsMemory: during a Redis outage each new key
// evicted another whose units could not be pushed, and the evicted entry
// stayed in memory (and in every round) until Redis took them: 10,000
// distinct keys on a store of MaxKeys 64 held 2,000, 4,000 … 10,000
// entries after five failed rounds, each round re-sending the whole
// backlog. Now a policy holds at most HeldBound(64) = 80 entries (64
// indexed, 16 evicted and kept for their units), so a round carries at
// most 80 keys' windows; an exhausted key keeps its count through the
// flood, and the fleet agrees again when Redis is back.
func TestAttackOutageKeyFloodBoundsMemory(t *testing.T) {
	t.Parallel()
	srv, _ := startRedis(t)
	proxy := faultproxy.Start(t, srv.Addr())
	client := newClient(t, proxy.Addr())
	clk := coretest.NewClock(t0)
	p := core.MustPolicy("o", core.Limit{Name: "o", Algorithm: core.FixedWindow{Quota: 10, Window: time.Hour}})
	const maxKeys = 64
	bound := localfirst.HeldBound(maxKeys)
	require.Equal(t, 80, bound)
	n := newNodes(t, client, clk, p, 1, localfirst.Options{MaxKeys: maxKeys, Prefix: "oflood:"})[0]
	ctx := context.Background()
	require.Equal(t, 10, takeAll(t, n, "victim", 100))
	require.NoError(t, n.s.Sync(ctx))

	proxy.Refuse(true)
	proxy.Drop()
	key := 0
	for range 5 {
		for range 2000 {
			require.Equal(t, 1, takeAll(t, n, fmt.Sprint("flood-", key), 1))
			key++
			if key%100 == 0 {
				require.LessOrEqual(t, localfirst.Held(n.s), bound)
			}
		}
		before := n.s.Stats().Items
		require.Error(t, n.s.Sync(ctx), "Redis is down")
		items := n.s.Stats().Items - before
		held := localfirst.Held(n.s)
		t.Logf("%d keys: %d entries held, %d items in the round", key, held, items)
		assert.LessOrEqual(t, held, bound, "MaxKeys bounds what a policy holds")
		assert.LessOrEqual(t, items, uint64(bound), "and what a round carries")
		assert.Zero(t, takeAll(t, n, "victim", 100), "the victim's count survives the flood")
		clk.Advance(10 * time.Second)
	}

	proxy.Refuse(false)
	require.NoError(t, n.s.Sync(ctx))
	require.NoError(t, n.s.Sync(ctx))
	assert.LessOrEqual(t, localfirst.Held(n.s), bound)
	assert.Zero(t, takeAll(t, n, "victim", 100), "10 in the window, no more")
	assert.Zero(t, readBack(t, client, clk, p, "oflood:", "victim"), "Redis holds the victim's 10")
}

// readBack returns what the window of key has left, as another node of
// p on client reads it: it takes one unit (a key new to it is decided on
// its share before a round reads it), syncs, and peeks.
func readBack(t *testing.T, client *redis.Client, clk *coretest.Clock, p *core.Policy, prefix, key string) int64 {
	t.Helper()
	n := newNodes(t, client, clk, p, 1, localfirst.Options{Prefix: prefix})[0]
	require.Equal(t, 1, takeAll(t, n, key, 1))
	require.NoError(t, n.s.Sync(context.Background()))
	r, err := n.l.Peek(context.Background(), key, 1)
	require.NoError(t, err)
	if r.Allowed {
		return r.Remaining + 1 // what is left after the unit peeked at
	}
	return r.Remaining
}

// reloadLoop toggles l's shadow limit n times, taking a unit after each
// change and syncing after every tenth.
func reloadLoop(t *testing.T, nd node, pol func(int64) *core.Policy, n int) {
	t.Helper()
	for i := range n {
		require.NoError(t, nd.l.SetPolicy(pol(int64(1000+i%2))))
		takeAll(t, nd, "k", 1)
		if i%10 == 9 {
			require.NoError(t, nd.s.Sync(context.Background()))
		}
	}
}

// settle collects the garbage, lets two rounds of s push what the
// keysets no table uses hold and release them, and returns the bytes of
// live heap objects then.
func settle(t *testing.T, s *localfirst.Store) uint64 {
	t.Helper()
	runtime.GC() // the tables no limiter holds
	require.NoError(t, s.Sync(context.Background()))
	require.NoError(t, s.Sync(context.Background()))
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestAttackReloadLoopReleasesTables: a shadow limit changed by SetPolicy
// binds a new table each time. Before, the store kept every bound table's
// keyset (64 shards) for its life and visited each in every round: 1000
// changes left 1001. Now a keyset no table uses is released once it has
// nothing left to push: the rounds visit the two in use, and the heap
// does not grow with the changes. (Not parallel: it measures the heap.)
func TestAttackReloadLoopReleasesTables(t *testing.T) {
	_, client := startRedis(t)
	clk := coretest.NewClock(t0)
	pol := func(shadowQuota int64) *core.Policy {
		return core.MustPolicy("p",
			core.Limit{Name: "m", Algorithm: core.FixedWindow{Quota: 100000, Window: time.Minute}},
			core.Limit{Name: "s", Algorithm: core.FixedWindow{Quota: shadowQuota, Window: time.Hour}, Shadow: true})
	}
	nd := newNodes(t, client, clk, pol(1000), 1, localfirst.Options{Prefix: "reload:"})[0]
	reloadLoop(t, nd, pol, 100)
	base := settle(t, nd.s)
	reloadLoop(t, nd, pol, 1000)
	grown := int64(settle(t, nd.s)) - int64(base)
	t.Logf("after 1100 changes: %d keysets, heap grown by %d bytes over the last 1000", localfirst.Keysets(nd.s), grown)
	assert.LessOrEqual(t, localfirst.Keysets(nd.s), 2, "the main table's keyset and the shadow's in use")
	assert.Less(t, grown, int64(1<<20), "1000 unreleased keysets hold about 10 MB")
	runtime.KeepAlive(nd.l)
}

// bindAndTake binds p on s, takes n units of key and drops the limiter.
func bindAndTake(t *testing.T, s *localfirst.Store, clk *coretest.Clock, p *core.Policy, key string, n int) {
	t.Helper()
	l, err := core.NewLimiter(p, core.WithStore(s), core.WithClock(clk))
	require.NoError(t, err)
	require.Equal(t, n, takeAll(t, node{s: s, l: l}, key, n))
}

// TestUnusedTableKeptUntilPushed: a table no limiter uses any more is
// released only once its units reached Redis: through an outage its
// keyset stays (and its units with it), and the round after Redis is back
// pushes them; the next one releases it.
func TestUnusedTableKeptUntilPushed(t *testing.T) {
	t.Parallel()
	srv, _ := startRedis(t)
	proxy := faultproxy.Start(t, srv.Addr())
	client := newClient(t, proxy.Addr())
	clk := coretest.NewClock(t0)
	p := core.MustPolicy("u", core.Limit{Name: "u", Algorithm: core.FixedWindow{Quota: 10, Window: time.Hour}})
	s, err := localfirst.New(client, localfirst.Options{Nodes: 1, Clock: clk, Timeout: localfirst.MaxTimeout, Prefix: "unused:"})
	require.NoError(t, err)
	ctx := context.Background()
	bindAndTake(t, s, clk, p, "k", 7)
	runtime.GC()
	proxy.Refuse(true)
	proxy.Drop()
	require.Error(t, s.Sync(ctx))
	require.Error(t, s.Sync(ctx))
	assert.Equal(t, 1, localfirst.Keysets(s), "units to push: kept")
	proxy.Refuse(false)
	require.NoError(t, s.Sync(ctx))
	require.NoError(t, s.Sync(ctx))
	assert.Zero(t, localfirst.Keysets(s), "pushed: released")
	assert.Zero(t, localfirst.Held(s))
	assert.Equal(t, int64(2), readBack(t, client, clk, p, "unused:", "k"), "Redis holds the 7 (and the reader's 1)")
}
