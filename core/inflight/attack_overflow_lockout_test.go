package inflight_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/floodgate-go/floodgate/core/inflight"
	"github.com/stretchr/testify/require"
)

// fillTable takes one slot of distinct keys until every shard's table is
// full (MaxKeys 1: one key per shard), and returns the slots held.
func fillTable(t *testing.T, m *inflight.Memory, prefix string) []*inflight.Slot {
	t.Helper()
	ctx := context.Background()
	var fill []*inflight.Slot
	for i := 0; m.Keys() < 64 && i < 100000; i++ {
		s, err := m.Acquire(ctx, fmt.Sprintf("%s-%d", prefix, i))
		require.NoError(t, err)
		if m.Keys() > len(fill) {
			fill = append(fill, s)
		} else {
			require.NoError(t, s.Release(ctx))
		}
	}
	require.Equal(t, 64, m.Keys())
	return fill
}

// fillBuckets takes one slot of distinct keys (limit 1) until every
// shard's one overflow bucket is held, and returns the slots held.
func fillBuckets(t *testing.T, m *inflight.Memory, prefix string) []*inflight.Slot {
	t.Helper()
	ctx := context.Background()
	var held []*inflight.Slot
	for i := 0; len(held) < 64 && i < 100000; i++ {
		if s, err := m.Acquire(ctx, fmt.Sprintf("%s-%d", prefix, i)); err == nil {
			held = append(held, s)
		}
	}
	require.Len(t, held, 64, "every overflow bucket held")
	return held
}

// TestAttackOverflowBucketsOutliveTheFullTable: a flood fills the table
// (MaxKeys), then takes every overflow bucket (Overflow × Limit slots),
// then lets the table go. Before, a key absent from the table was counted
// in its bucket whenever the bucket was in use, whoever used it: the 64
// slots held in the buckets shut out every newcomer (64 of 64 refused)
// with the table empty (each tried alone), where the promise is that a flood must hold
// MaxKeys + Overflow × Limit slots at once. Now a key goes to its bucket
// only while the table is full or it holds slots there itself: 0 of 64
// refused, and the flood's keys still never exceed their limit.
func TestAttackOverflowBucketsOutliveTheFullTable(t *testing.T) {
	t.Parallel()
	m := newMemory(t, 1, inflight.MemoryOptions{MaxKeys: 1, Overflow: 1})
	ctx := context.Background()
	fill := fillTable(t, m, "fill")
	flood := fillBuckets(t, m, "flood")
	for _, s := range fill {
		require.NoError(t, s.Release(ctx))
	}
	require.Zero(t, m.Keys(), "the table is empty: only the buckets are held")

	refused := 0
	for i := range 64 { // one at a time: each finds the table empty
		s, err := m.Acquire(ctx, fmt.Sprintf("new-%d", i))
		if err != nil {
			require.ErrorIs(t, err, inflight.ErrFull)
			refused++
			continue
		}
		require.NoError(t, s.Release(ctx))
	}
	require.Zero(t, refused, "newcomers refused with the table empty, for slots held by others in overflow buckets")

	for _, s := range flood {
		_, err := m.Acquire(ctx, inflight.SlotKey(s))
		require.ErrorIs(t, err, inflight.ErrFull, "a key holding its bucket's slot takes no second one in the table")
	}
	for _, s := range flood {
		require.NoError(t, s.Release(ctx))
	}
	require.Zero(t, m.Keys())
}
