package inflight_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/floodgate-go/floodgate/core/inflight"
	"github.com/stretchr/testify/require"
)

// TestAttackWaitersOfOtherKeysLockOutFreeKeys: a flood fills MaxWaiting,
// the bound of all lines, with waiters on keys of its own whose slots it
// holds. Before, Wait joined its key's line before looking at its slots:
// every other key was refused with ErrQueueFull (3 of 3, every slot of
// theirs free), so that the middleware's Wait answered every client 429
// while 1,024 keys × (Limit + 64) requests held the 65,536 places of the
// defaults. Now a key nobody waits for takes a free slot without a place
// in line: 0 of 3 refused; a key whose slots are all held is still
// refused at once.
func TestAttackWaitersOfOtherKeysLockOutFreeKeys(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const flood = 4
		m := newMemory(t, 1, inflight.MemoryOptions{MaxWaiters: 1, MaxWaiting: flood})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		errs := make(chan error, flood)
		var held []*inflight.Slot
		for i := range flood {
			key := fmt.Sprintf("flood-%d", i)
			s, err := m.Acquire(ctx, key)
			require.NoError(t, err)
			held = append(held, s)
			go func() {
				_, err := m.Wait(ctx, key)
				errs <- err
			}()
		}
		synctest.Wait()
		for i := range flood {
			require.Equal(t, 1, m.Waiting(fmt.Sprintf("flood-%d", i)))
		}

		refused := 0
		for i := range 3 {
			s, err := m.Wait(ctx, fmt.Sprintf("client-%d", i))
			if err != nil {
				require.ErrorIs(t, err, inflight.ErrQueueFull)
				refused++
				continue
			}
			require.NoError(t, s.Release(ctx))
		}
		require.Zero(t, refused, "clients refused a free slot for want of a place in line")

		s, err := m.Acquire(ctx, "busy")
		require.NoError(t, err)
		_, err = m.Wait(ctx, "busy")
		require.ErrorIs(t, err, inflight.ErrQueueFull, "a key that must wait is refused at once")
		require.NoError(t, s.Release(ctx))

		cancel()
		for range flood {
			require.ErrorIs(t, <-errs, context.Canceled)
		}
		for _, s := range held {
			require.NoError(t, s.Release(context.Background()))
		}
	})
}
