package core

import (
	"context"
	"fmt"
	"hash/maphash"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shardKeys returns n keys that c puts in its shard i.
func shardKeys(c *overrideCache, i uint64, prefix string, n int) []string {
	keys := make([]string, 0, n)
	for j := 0; len(keys) < n; j++ {
		if k := fmt.Sprint(prefix, j); maphash.String(c.seed[0], k)%overrideShards == i {
			keys = append(keys, k)
		}
	}
	return keys
}

// TestAttackOverrideRoomScansShard: a full cache shard made room for a
// new key by walking its entries, under the shard's lock, for one of a
// key decided by the default. When the shard held only keys with an
// override (a provider giving many tenants their own limits), each key
// the provider has no override for (one a client makes up, never cached
// then) walked the whole shard, MaxKeys/16 entries, on every request; and
// with one such key cached among the tenants, each new one walked about
// half the shard to find it. Here, on a shard of 64 tenants, 32 made-up
// keys with every tenant live, then 32 once one tenant's entry expired,
// looked at about 3,000 entries (2,048 for the first 32). The entries
// are now kept in order of expiry, the default's apart from the others',
// and only those that go are looked at: fewer than one a request.
func TestAttackOverrideRoomScansShard(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	def, tenant := &Limiter{}, &Limiter{}
	var c overrideCache
	c.init(16*64, def)
	s := &c.shards[0]
	tenants := shardKeys(&c, 0, "tenant", s.max)
	for i, k := range tenants { // tenant i's override expires at 1 h + i s
		l, err := c.get(ctx, k, 0, func(context.Context, string, *Limiter, int64) (*Limiter, time.Duration, error) {
			return tenant, time.Hour + time.Duration(i)*time.Second, nil
		})
		require.NoError(t, err)
		require.Same(t, tenant, l)
	}
	require.Len(t, s.m, s.max, "the shard is full of tenants")
	byDefault := func(context.Context, string, *Limiter, int64) (*Limiter, time.Duration, error) {
		return def, time.Minute, nil
	}
	const requests = 64
	made := shardKeys(&c, 0, "made-up", requests)
	for _, k := range made[:requests/2] { // every tenant live: no room
		l, err := c.get(ctx, k, 1, byDefault)
		require.NoError(t, err)
		require.Same(t, def, l)
	}
	// Tenant 0's entry has expired: the next key takes its place, and
	// each one after forgets the one before, decided by the default.
	now := int64(time.Hour + time.Second/2)
	for _, k := range made[requests/2:] {
		l, err := c.get(ctx, k, now, byDefault)
		require.NoError(t, err)
		require.Same(t, def, l)
	}
	require.Len(t, s.m, s.max)
	for i, k := range tenants[1:] {
		e := s.m[overrideKey{maphash.String(c.seed[0], k), maphash.String(c.seed[1], k)}]
		require.NotNil(t, e, "live tenant %d forgotten", i+1)
		require.Same(t, tenant, e.lim)
	}
	t.Logf("%d entries looked at for %d requests", s.visited, requests)
	require.LessOrEqual(t, s.visited, requests, "entries looked at to make room, for %d requests", requests)
}

// TestOverrideRoomRestoredEntryMayGo: an expired entry put back when its
// key's new answer was not given (the asking caller went away) may still
// go to make room, although a full shard looked for one while its key was
// being resolved, and skipped it.
func TestOverrideRoomRestoredEntryMayGo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	def := &Limiter{}
	var c overrideCache
	c.init(overrideShards, def) // one entry a shard
	s := &c.shards[0]
	keys := shardKeys(&c, 0, "k", 3)
	byDefault := func(context.Context, string, *Limiter, int64) (*Limiter, time.Duration, error) {
		return def, time.Second, nil
	}
	_, err := c.get(ctx, keys[0], 0, byDefault)
	require.NoError(t, err)
	entered, release, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		_, err := c.get(ctx, keys[0], int64(2*time.Second), func(context.Context, string, *Limiter, int64) (*Limiter, time.Duration, error) {
			close(entered)
			<-release
			return nil, 0, context.Canceled
		})
		assert.ErrorIs(t, err, context.Canceled)
	}()
	<-entered
	_, err = c.get(ctx, keys[1], int64(2*time.Second), byDefault) // no room: keys[0]'s is pending
	require.NoError(t, err)
	require.Len(t, s.m, 1)
	close(release)
	<-done
	_, err = c.get(ctx, keys[2], int64(2*time.Second), byDefault)
	require.NoError(t, err)
	k := keys[2]
	require.NotNil(t, s.m[overrideKey{maphash.String(c.seed[0], k), maphash.String(c.seed[1], k)}], "keys[0]'s expired entry, put back, never went")
}
