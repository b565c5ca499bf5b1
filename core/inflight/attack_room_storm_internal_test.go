package inflight

import (
	"context"
	"fmt"
	"hash/maphash"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countingCtx counts the calls of Done: one by the line's Await, then one
// each time a waiter goes (back) to sleep.
type countingCtx struct {
	context.Context
	n *atomic.Int64
}

func (c countingCtx) Done() <-chan struct{} { c.n.Add(1); return c.Context.Done() }

// TestAttackRoomWakesOneWaiter: Limit 1, one place in a shard's table and
// one overflow bucket, both held; 40 keys of the shard wait, and the place
// (or the bucket's slot) is freed 40 times. Every key leaving the table
// (every release in the bucket) woke every waiter of the shard (of the
// bucket), of which one took the place (the slot): draining N waiters
// cost about N²/2 wake-ups and tries under the shard's lock, a flood's
// amplifier (here 860 calls of Done for the table, 823 for the bucket, the
// line's 40 included; 200 waiters: 20,302 tries). Now a release wakes the
// first waiter only, and a place or slot a woken waiter leaves goes to
// the next: each of the 40 sleeps once, 80 calls.
func TestAttackRoomWakesOneWaiter(t *testing.T) {
	t.Parallel()
	for _, freeing := range []string{"table", "bucket"} {
		m, err := NewMemory(1, MemoryOptions{MaxKeys: shards, Overflow: shards})
		require.NoError(t, err)
		const waiters = 40
		var keys []string
		for i := 0; len(keys) < waiters+2; i++ {
			k := fmt.Sprint("k", i)
			if maphash.String(m.seed, k)&(shards-1) == 0 {
				keys = append(keys, k)
			}
		}
		bg := context.Background()
		place, err := m.Acquire(bg, keys[0]) // the shard's place in the table
		require.NoError(t, err)
		bucket, err := m.Acquire(bg, keys[1]) // its overflow bucket
		require.NoError(t, err)
		var dones atomic.Int64
		ctx := countingCtx{bg, &dones}
		slots := make(chan *Slot, waiters)
		var wg sync.WaitGroup
		for _, k := range keys[2:] {
			wg.Go(func() {
				s, err := m.Wait(ctx, k)
				assert.NoError(t, err)
				slots <- s
			})
		}
		for dones.Load() < 2*waiters { // every waiter asleep
			runtime.Gosched()
		}
		first := map[string]*Slot{"table": place, "bucket": bucket}[freeing]
		require.NoError(t, first.Release(bg))
		for range waiters {
			s := <-slots
			for range 50 { // let any other woken waiter go back to sleep
				runtime.Gosched()
			}
			require.NoError(t, s.Release(bg))
		}
		wg.Wait()
		assert.Equal(t, int64(2*waiters), dones.Load(), "%s: each waiter slept once", freeing)
	}
}
