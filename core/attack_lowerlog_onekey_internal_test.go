package core

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// opaqueStore is a MemoryStore whose tables are not the in-memory store's
// own type to the Limiter: its refunds take the path of other stores
// (positions counted by the log's shards, lowerShards of them).
type opaqueStore struct{ *MemoryStore }

// Bind binds p on the in-memory store, behind the store.Table interface.
func (o opaqueStore) Bind(p *Policy) (store.Table, error) {
	t, err := o.MemoryStore.Bind(p)
	return struct{ store.Table }{t}, err
}

// TestAttackLowerLogOneKeyWalksItsList: the refund log kept up to a
// shard's bound of refunds (the ledger's capacity over the shards: 4,096
// here, 16,384 by default) for ONE key, and each refund of that key walks
// the key's list three times (moved twice, pruneKey once), under the
// shard's lock, which the other keys' refunds of the shard wait for (and
// which a refund on Redis holds across its round trip). A client taking
// and refunding its own key in a loop (a refund gives its cost back, so
// the loop has no end within the refund window) grew its list to the
// shard's bound and made its refunds walk up to 12,285 entries (6,142 on
// average, over 4,096 of them). A key now keeps at most lowerKeyCap
// refunds (a quarter of the shard's bound here): a refund walks at most 5
// times that, and less than 3 times on average.
func TestAttackLowerLogOneKeyWalksItsList(t *testing.T) {
	t.Parallel()
	const pairs = 4 * lowerKeyCap
	stores := map[string]func(*MemoryStore) Store{
		"memory": func(ms *MemoryStore) Store { return ms },
		"other":  func(ms *MemoryStore) Store { return opaqueStore{ms} },
	}
	for name, wrap := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			// GCRA's longest hold (its tolerance, 10,000 s) is past the
			// refund window (a minute): the list is pruned by the window
			// alone, and the 4,096 takes pass without their refunds.
			p := MustPolicy("p", Limit{Name: "l", Algorithm: GCRA{Rate: PerSecond(1), Burst: 10_000}})
			ms, err := NewMemoryStore(MemoryOptions{Shards: lowerShards, MaxKeys: 1 << 12})
			require.NoError(t, err)
			clk := &stepClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
			l, err := NewLimiter(p, WithStore(wrap(ms)), WithClock(clk), WithRefundLedger(pairs*lowerShards, time.Minute))
			require.NoError(t, err)
			require.Equal(t, pairs, l.lowers.perShard)
			walked := func() (n int) {
				for i := range l.lowers.shards {
					n += l.lowers.shards[i].walked
				}
				return n
			}
			most, total := 0, 0
			for i := range pairs {
				r, err := l.Allow(ctx, "client")
				require.NoError(t, err)
				require.True(t, r.Allowed)
				before := walked()
				back, err := l.Refund(ctx, "client", r)
				require.NoError(t, err)
				if name == "memory" {
					require.Equal(t, int64(9999), back.Remaining, "refund %d gives its unit back", i)
				}
				most, total = max(most, walked()-before), total+walked()-before
				clk.t = clk.t.Add(time.Millisecond)
			}
			t.Logf("%s: entries walked by one refund: at most %d, %.1f on average, over %d take-and-refund pairs of one key (a shard's bound of %d)",
				name, most, float64(total)/pairs, pairs, l.lowers.perShard)
			// moved 2, pruneKey 1 and, once every lowerKeyCap/4 refunds,
			// forgetKeyOlder 2 walks of at most lowerKeyCap entries.
			assert.LessOrEqual(t, most, 5*lowerKeyCap, "entries walked by one refund of the key")
			assert.LessOrEqual(t, total, 3*lowerKeyCap*pairs, "entries walked by %d refunds of the key", pairs)
		})
	}
}

// TestLowerLogKeyCapForgetsForTheKeyAlone: a key at lowerKeyCap refunds
// forgets the oldest quarter of them, and a take of the key positioned at or
// below one forgotten gives nothing back from its spans (moved: not ok),
// while a take positioned after them still counts the refunds kept. The
// other keys of the shard are not concerned (the floor is the key's, not
// the shard's), and the key's floor goes with its list, folded into the
// shard's: no take of the key is refused less after.
func TestLowerLogKeyCapForgetsForTheKeyAlone(t *testing.T) {
	t.Parallel()
	const perShard, window = 2 * lowerKeyCap, 1 << 20
	const client, other = 1, 2
	var sh lowerShard
	var until [MaxLimits]int64
	until[0] = 1 << 40
	shifted := lowering{shift: [MaxLimits]int64{1}, until: until}
	sh.record(other, lowering{pos: 1, tmark: 1, at: 1}, window, perShard)
	for pos := uint64(2); pos <= lowerKeyCap+1; pos++ { // the list is full
		e := shifted
		e.pos, e.tmark, e.at = pos, pos, int64(pos)
		sh.record(client, e, window, perShard)
	}
	require.Len(t, sh.keys[client], lowerKeyCap)
	require.Empty(t, sh.floors)
	e := shifted
	e.pos, e.tmark, e.at = lowerKeyCap+2, lowerKeyCap+2, lowerKeyCap+2
	sh.record(client, e, window, perShard)
	require.Len(t, sh.keys[client], lowerKeyCap-lowerKeyCap/4+1, "the oldest quarter forgotten, the refund recorded")
	const floor = lowerKeyCap/4 + 1 // positions 2 to 257 forgotten
	assert.Equal(t, uint64(floor), sh.floors[client], "the key's floor")
	assert.Zero(t, sh.forgot, "the shard's floor is not raised")

	_, ok := sh.moved(client, floor, noHi, 0, &until)
	assert.False(t, ok, "a take of the key positioned at a forgotten refund")
	shift, ok := sh.moved(client, floor+1, noHi, 0, &until)
	assert.True(t, ok, "a take of the key positioned after every refund forgotten")
	assert.Equal(t, int64(lowerKeyCap-lowerKeyCap/4+1), shift[0], "moved by each refund kept")
	_, ok = sh.moved(other, 1, noHi, 0, &until)
	assert.True(t, ok, "a take of another key, positioned before the refunds forgotten")

	// The window passes, and other keys' refunds fill the shard: the
	// key's list is pruned, its floor folded.
	for kh := uint64(3); sh.keys[client] != nil; kh++ {
		require.Less(t, kh, uint64(perShard+3))
		sh.record(kh, lowering{pos: 1<<10 + kh, tmark: 1<<10 + kh, at: window + lowerKeyCap + 2}, window, perShard)
	}
	assert.Empty(t, sh.floors, "the key's floor goes with its list")
	assert.GreaterOrEqual(t, sh.floor(client), uint64(floor), "the key's floor never decreases")
	_, ok = sh.moved(client, floor, noHi, 0, &until)
	assert.False(t, ok, "a take of the key positioned at a forgotten refund, once the list is gone")
}
