package core

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackLowerLogFullRescans: a full shard of the refund log (the
// refunds of span limits that may have moved later takes) made room by
// pruning every key it held, once for each instant a refund's hold
// passed. Refunds of distinct keys arriving about as fast as their holds
// pass (refund rate × hold near the shard's bound: a route refunding its
// failures, on keys a client makes up) had each refund look at every key
// of its shard, under the shard's lock, which every refund of the shard's
// keys waits for (and which a refund on Redis holds across its round
// trip): 64 refunds on a shard of 256 looked at 16,384 keys, a number
// growing with the shard (16,384 by default). The refunds are now also
// kept in order of their instants, and only the keys of those whose hold
// passed are looked at: one a refund.
func TestAttackLowerLogFullRescans(t *testing.T) {
	t.Parallel()
	const perShard, window, refunds = 256, 256, 64
	var sh lowerShard
	for at := int64(1); at <= perShard; at++ { // full, a key a step
		sh.record(uint64(at), lowering{pos: uint64(at), at: at}, window, perShard)
	}
	require.Equal(t, perShard, sh.n)
	sh.visited = 0
	for at := int64(perShard + 1); at <= perShard+refunds; at++ {
		sh.record(uint64(at), lowering{pos: uint64(at), at: at}, window, perShard)
		require.Equal(t, perShard, sh.n, "a refund's hold passes at each step")
	}
	t.Logf("%d keys looked at for %d refunds", sh.visited, refunds)
	assert.LessOrEqual(t, sh.visited, 2*refunds, "keys looked at to make room, for %d refunds", refunds)
	assert.Equal(t, uint64(refunds), sh.forgot, "only the refunds whose hold passed forgotten")
	for at := int64(refunds + 1); at <= perShard+refunds; at++ {
		require.Len(t, sh.keys[uint64(at)], 1, "the refund of key %d, within its hold", at)
	}
}

// recordAsScanned is lowerShard.record as it was, pruning every key of a
// full shard: the reference TestLowerLogAsScanned compares it with.
func recordAsScanned(sh *lowerShard, kh uint64, e lowering, window int64, perShard int) {
	if sh.keys == nil {
		sh.keys = make(map[uint64][]lowering)
	}
	if sh.n >= perShard {
		for kh := range sh.keys {
			sh.pruneKey(kh, e.at, window)
		}
		if sh.n >= perShard {
			sh.forgetOlder()
		}
	}
	sh.pruneKey(kh, e.at, window)
	sh.keys[kh] = append(sh.keys[kh], e)
	sh.n++
}

// TestLowerLogAsScanned: the shard keeps the refunds, and forgets up to
// the position, that the scan it replaces did, for keys refunded again,
// holds passing, the shard overflowing and a clock that steps back.
func TestLowerLogAsScanned(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	const perShard, keys, window = 32, 96, 50
	var sh, ref lowerShard
	at := int64(100)
	for i := range 3000 {
		switch rng.IntN(16) {
		case 0:
			at = max(0, at-rng.Int64N(20)) // back
		case 1:
			at += rng.Int64N(window) // a pause
		default:
			at += rng.Int64N(2)
		}
		kh, e := rng.Uint64N(keys), lowering{pos: uint64(i + 1), at: at}
		sh.record(kh, e, window, perShard)
		recordAsScanned(&ref, kh, e, window, perShard)
		require.Equal(t, ref.n, sh.n, "refund %d", i)
		require.Equal(t, ref.forgot, sh.forgot, "refund %d", i)
		require.LessOrEqual(t, len(sh.byAt), 2*perShard+1)
	}
	require.Equal(t, ref.keys, sh.keys)
	require.NotZero(t, sh.forgot)
}
