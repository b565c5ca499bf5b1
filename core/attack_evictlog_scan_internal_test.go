package core

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackEvictLogFullRescans: a full eviction log made room by looking
// at every mark for the recovered ones, once for each instant one
// recovered. A key flood whose evicted entries recover about as fast as
// new ones are evicted (a mark's life near the log's bound in evictions)
// had each eviction look at every mark, under the shard's lock that every
// decision of the shard waits for: 248 marks an eviction at a bound of 256,
// a number growing with the bound (a quarter of a shard's keys). Marks
// are now also kept in order of recovery, and only those that recover are
// looked at: about one an eviction.
func TestAttackEvictLogFullRescans(t *testing.T) {
	t.Parallel()
	const limit, life, adds = 256, 256, 8000
	var l evictLog
	for i := range adds {
		now := int64(i)
		l.add(uint64(i)+1, uint64(i)+1, now+life, now, limit)
	}
	perAdd := float64(l.visited) / adds
	t.Logf("%d marks looked at, %.1f an eviction", l.visited, perAdd)
	assert.Less(t, perAdd, 2.0, "only the marks that recover are looked at")
	assert.LessOrEqual(t, len(l.marks), limit)
	assert.LessOrEqual(t, len(l.byUntil), 2*limit)

	// Marks raised again and again (one key evicted with ever later
	// recoveries) leave stale entries: the heap is rebuilt, never grows
	// past twice the bound, and the marks keep what they held.
	var r evictLog
	for i := range adds {
		r.add(7, uint64(i)+1, int64(i)+life, int64(i), limit)
	}
	require.Len(t, r.marks, 1)
	assert.Equal(t, evictMark{seq: adds, until: adds - 1 + life}, r.marks[7])
	assert.LessOrEqual(t, len(r.byUntil), 2*limit)
	assert.True(t, r.before(7, adds) && !r.before(7, adds+1))
}
