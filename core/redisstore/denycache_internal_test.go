package redisstore

import (
	"fmt"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDenyCacheFullConstantWork: a denial put into a full cache of live
// entries looks at a bounded number of entries (it scanned the whole shard,
// 2,048 entries at the default size, doubling a denial's latency), is
// remembered, and the cache stays within its bound.
func TestDenyCacheFullConstantWork(t *testing.T) {
	t.Parallel()
	const size = 1 << 16
	c := newDenyCache(size)
	o := store.Outcome{RetryAfter: time.Hour}
	for i := range 2 * size {
		c.put(fmt.Sprint("fill", i), 0, 0, o, 0)
	}
	total := func() (n, visited int) {
		for i := range c.shards {
			n += len(c.shards[i].m)
			visited += c.shards[i].visited
		}
		return
	}
	n, before := total()
	require.LessOrEqual(t, n, size)
	const puts = 1000
	for i := range puts {
		c.put(fmt.Sprint("new", i), int64(i), int64(i), o, 0)
		_, ok, _ := c.get(fmt.Sprint("new", i), int64(i), int64(i))
		require.True(t, ok, "the newest denial is remembered")
	}
	n, after := total()
	require.LessOrEqual(t, n, size)
	require.LessOrEqual(t, after-before, puts*evictSample, "entries looked at per denial on a full cache")
	// Expired entries are preferred over live ones.
	c2 := newDenyCache(32) // one entry per shard
	c2.put("old", 0, 0, store.Outcome{RetryAfter: time.Millisecond}, 0)
	_, s := c2.shard("old")
	c2.put("old2", int64(time.Second), int64(time.Second), o, 0) // may land in another shard
	if _, s2 := c2.shard("old2"); s2 == s {
		_, ok, _ := c2.get("old", int64(time.Second), int64(time.Second))
		require.False(t, ok)
	}
}

// BenchmarkDenyCachePutFull: a new denial on a full cache of live entries.
func BenchmarkDenyCachePutFull(b *testing.B) {
	c := newDenyCache(1 << 16)
	o := store.Outcome{RetryAfter: time.Hour}
	for i := range 1 << 17 {
		c.put(fmt.Sprint("fill", i), 0, 0, o, 0)
	}
	keys := make([]string, 4096)
	for i := range keys {
		keys[i] = fmt.Sprint("new", i)
	}
	b.ResetTimer()
	for i := range b.N {
		c.put(keys[i%len(keys)], int64(i), int64(i), o, 0)
	}
}

// TestDenyCacheForgetsDenialsDecidedBeforeARefund: a denial received after
// a refund (or reset) of its key was sent, or while one was out, was
// decided by Redis before it, perhaps: it is not remembered (it would hide
// the units the refund gave back until it ends), while a denial of a
// request sent after the refund ended is.
func TestDenyCacheForgetsDenialsDecidedBeforeARefund(t *testing.T) {
	c := newDenyCache(1 << 10)
	o := store.Outcome{RetryAfter: time.Hour}
	_, ok, gen := c.get("k", 0, 0)
	require.False(t, ok)
	c.del("k", true) // a refund sent while the take was out
	c.put("k", 0, 0, o, gen)
	_, ok, _ = c.get("k", 1, 1)
	assert.False(t, ok, "a denial decided before the refund is not remembered")

	_, _, gen = c.get("k", 1, 1) // a take sent after the refund was sent...
	c.del("k", true)             // ...and before it ended
	c.put("k", 1, 1, o, gen)
	_, ok, _ = c.get("k", 2, 2)
	assert.False(t, ok, "nor one decided while the refund was out")

	_, _, gen = c.get("k", 2, 2) // sent after the refund ended
	c.put("k", 2, 2, o, gen)
	_, ok, _ = c.get("k", 3, 3)
	assert.True(t, ok, "a denial after the refund is remembered")

	_, _, gen = c.get("other", 3, 3)
	c.del("k", false) // a take of k that consumed: no refund
	c.put("other", 3, 3, o, gen)
	_, ok, _ = c.get("other", 4, 4)
	assert.True(t, ok, "a take forgets its key's denial only")
}
