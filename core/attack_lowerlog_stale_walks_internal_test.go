package core

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackLowerLogStaleRecordsWalkOneKey: a full shard of the refund
// log pruned the key of each record of its heap whose hold had passed,
// one record at a time, and pruneKey walks the key's whole list. One
// client refunding one key as fast as its refunds' holds pass keeps its
// list at the shard's bound less one (its own refunds prune it, the
// shard never full) while the heap fills with records of its pruned
// entries, up to twice the bound before it is rebuilt. One more refund
// of another of its keys fills the shard; the next refund of any key of
// the shard then popped those ~256 stale records and walked the client's
// 255 live entries for each: 65,535 entries walked, under the shard's
// lock, by one refund of an innocent key (P² for a shard of P: 2.7e8
// with the default ledger's 16,384 a shard). A key is now pruned once
// for all its records popped by one refund: at most the heap's records
// popped plus the shard's entries.
func TestAttackLowerLogStaleRecordsWalkOneKey(t *testing.T) {
	t.Parallel()
	const perShard = 256
	const window = perShard - 1 // an entry's hold passes as the client's next refund comes
	const client, other, innocent = 1, 2, 3
	var sh lowerShard
	at, pos := int64(0), uint64(0)
	next := func() lowering { at++; pos++; return lowering{pos: pos, at: at} }
	for len(sh.byAt) < 2*perShard-1 || sh.n < perShard-1 {
		sh.record(client, next(), window, perShard)
		require.Less(t, sh.n, perShard, "the client's refunds never fill the shard")
		require.LessOrEqual(t, len(sh.byAt), 2*perShard+1)
	}
	require.Len(t, sh.keys[client], perShard-1)
	sh.record(other, next(), window, perShard) // the shard is full
	require.Equal(t, perShard, sh.n)

	sh.walked, sh.visited = 0, 0
	pos++ // at the same instant
	sh.record(innocent, lowering{pos: pos, at: at}, window, perShard)
	t.Logf("one refund of an innocent key popped %d records and walked %d entries (shard of %d)",
		sh.visited, sh.walked, perShard)
	assert.LessOrEqual(t, sh.walked, 3*perShard, "entries walked by one refund of an innocent key")
	require.Len(t, sh.keys[innocent], 1)
}
