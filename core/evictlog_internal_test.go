package core

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An evictLog that overflows many times over still refuses the refund of
// every take a mark covered (a take of its key at an epoch up to the
// mark's), and refuses no take made after the latest half of the bound
// of evictions: the overflow forgets the older half of its marks, not all.
func TestEvictLogOverflowKeepsMarksExact(t *testing.T) {
	const limit, evictions = 256, 10_000
	var l evictLog
	for seq := uint64(1); seq <= evictions; seq++ {
		// Key seq evicted at epoch seq, recovering far in the future.
		l.add(seq, seq, 1<<62, 0, limit)
		require.LessOrEqual(t, len(l.marks), limit)
	}
	for seq := uint64(1); seq <= evictions; seq++ {
		require.True(t, l.before(seq, seq), "a take of evicted key %d at the eviction's epoch", seq)
	}
	// A key never evicted: its takes of the latest limit/2 epochs are
	// refunded as usual.
	for seq := uint64(evictions - limit/2 + 1); seq <= evictions; seq++ {
		assert.False(t, l.before(0, seq), "a take at epoch %d of a key never evicted", seq)
	}
}

// The same for a Limiter's resetLog: after 10,000 resets of distinct keys
// within a window, a decision of each key taken at its reset's instant is
// still refused, and no decision of a key never reset taken within the
// latest maxResets/2 resets is.
func TestResetLogOverflowKeepsResetsExact(t *testing.T) {
	const resets, window = 10_000, 1 << 62
	var r resetLog
	for at := int64(1); at <= resets; at++ {
		r.reset(uint64(at), at, window)
		require.LessOrEqual(t, len(r.at), maxResets)
	}
	for at := int64(1); at <= resets; at++ {
		require.True(t, r.forgot(uint64(at), at), "a decision of reset key %d at its reset", at)
	}
	for at := int64(resets - maxResets/2 + 1); at <= resets; at++ {
		assert.False(t, r.forgot(0, at), "a decision at %d of a key never reset", at)
	}
}
