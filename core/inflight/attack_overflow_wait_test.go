package inflight_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/floodgate-go/floodgate/core/inflight"
	"github.com/stretchr/testify/require"
)

// TestAttackOverflowWaiterWokenByRoomInTheTable: the head of a key's wait
// line, refused because the table was full and its overflow bucket held
// by a flood (which holds it forever), waited for that bucket alone.
// Before, once the table had room again the waiter slept on (1 of 1 still
// waiting, the table empty) until the flood let go or its context ended;
// now a key leaving the table wakes it, and it takes a slot there.
func TestAttackOverflowWaiterWokenByRoomInTheTable(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		m := newMemory(t, 1, inflight.MemoryOptions{MaxKeys: 1, Overflow: 1})
		ctx := context.Background()
		fill := fillTable(t, m, "fill")
		flood := fillBuckets(t, m, "flood")
		wctx, cancel := context.WithCancel(ctx)
		defer cancel() // (a waiter left asleep ends with the test)
		got := make(chan *inflight.Slot, 1)
		go func() {
			s, err := m.Wait(wctx, "waiter")
			if err == nil {
				got <- s
			}
		}()
		synctest.Wait()
		require.Equal(t, 1, m.Waiting("waiter"), "refused: its shard's table and its bucket are full")

		for _, s := range fill {
			require.NoError(t, s.Release(ctx))
		}
		synctest.Wait()
		require.Zero(t, m.Waiting("waiter"), "the table has room: the waiter is served")
		s := <-got
		require.NoError(t, s.Release(ctx))
		for _, s := range flood {
			require.NoError(t, s.Release(ctx))
		}
		require.Zero(t, m.Keys())
	})
}
