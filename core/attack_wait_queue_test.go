package core_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/stretchr/testify/require"
)

// TestAttackWaitersOfOtherKeysRefuseFreeKeys: a flood fills MaxWaiting,
// the bound of all lines, with waiters on keys of its own it has spent.
// Before, WaitN joined its key's line before asking the limiter: every
// other key was refused with ErrWaitQueueFull (3 of 3) though the limit
// admitted it at once. Now a key nobody waits for is decided without a
// place in line when the lines are full: 0 of 3 refused; a key the limit
// denies is still refused at once, having taken nothing.
func TestAttackWaitersOfOtherKeysRefuseFreeKeys(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const flood = 4
		l, w := newWaiter(t, core.GCRA{Rate: core.PerMinute(1), Burst: 1}, core.WaitOptions{MaxWaiters: 1, MaxWaiting: flood})
		ctx := context.Background()
		fctx, cancel := context.WithCancel(ctx)
		defer cancel()
		errs := make(chan error, flood)
		for i := range flood {
			key := fmt.Sprintf("flood-%d", i)
			res, err := l.Allow(ctx, key)
			require.NoError(t, err)
			require.True(t, res.Allowed)
			go func() {
				_, err := w.Wait(fctx, key)
				errs <- err
			}()
		}
		synctest.Wait()
		for i := range flood {
			require.Equal(t, 1, w.Waiting(fmt.Sprintf("flood-%d", i)))
		}
		start := time.Now()

		refused := 0
		for i := range 3 {
			res, err := w.Wait(ctx, fmt.Sprintf("client-%d", i))
			if err != nil {
				require.ErrorIs(t, err, core.ErrWaitQueueFull)
				refused++
				continue
			}
			require.True(t, res.Allowed)
		}
		require.Zero(t, refused, "clients refused, the limit admitting them, for want of a place in line")

		_, err := w.Wait(ctx, "client-0")
		require.ErrorIs(t, err, core.ErrWaitQueueFull, "a key that must wait is refused at once")
		require.Zero(t, time.Since(start), "at once")

		cancel()
		for range flood {
			require.ErrorIs(t, <-errs, context.Canceled)
		}
		time.Sleep(time.Minute)
		res, err := l.Peek(ctx, "client-0", 1)
		require.NoError(t, err)
		require.True(t, res.Allowed, "the refused wait took nothing")
	})
}
