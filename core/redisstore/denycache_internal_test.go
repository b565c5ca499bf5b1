package redisstore

import (
	"fmt"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/store"
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
		c.put(fmt.Sprint("fill", i), 0, 0, o)
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
		c.put(fmt.Sprint("new", i), int64(i), int64(i), o)
		_, ok := c.get(fmt.Sprint("new", i), int64(i))
		require.True(t, ok, "the newest denial is remembered")
	}
	n, after := total()
	require.LessOrEqual(t, n, size)
	require.LessOrEqual(t, after-before, puts*evictSample, "entries looked at per denial on a full cache")
	// Expired entries are preferred over live ones.
	c2 := newDenyCache(32) // one entry per shard
	c2.put("old", 0, 0, store.Outcome{RetryAfter: time.Millisecond})
	_, s := c2.shard("old")
	c2.put("old2", int64(time.Second), int64(time.Second), o) // may land in another shard
	if _, s2 := c2.shard("old2"); s2 == s {
		_, ok := c2.get("old", int64(time.Second))
		require.False(t, ok)
	}
}

// BenchmarkDenyCachePutFull: a new denial on a full cache of live entries.
func BenchmarkDenyCachePutFull(b *testing.B) {
	c := newDenyCache(1 << 16)
	o := store.Outcome{RetryAfter: time.Hour}
	for i := range 1 << 17 {
		c.put(fmt.Sprint("fill", i), 0, 0, o)
	}
	keys := make([]string, 4096)
	for i := range keys {
		keys[i] = fmt.Sprint("new", i)
	}
	b.ResetTimer()
	for i := range b.N {
		c.put(keys[i%len(keys)], int64(i), int64(i), o)
	}
}
