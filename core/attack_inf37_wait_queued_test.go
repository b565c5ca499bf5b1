package core_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/stretchr/testify/require"
)

// TestAttackInf37QueuedWaiterToldAtOnce: GCRA of 1 a minute, burst 1, the
// key spent, and a head waiting its minute in the Waiter's line. Before,
// a caller queued behind it learned nothing until it became the head: a
// cost of 2, above the burst, that no wait ever admits, waited out the
// head's whole minute (1m0s) before ErrWaitExceedsDeadline; a cost of 1
// under a 30 s deadline, whose wait is a minute at least, slept its 30 s
// and ended with context.DeadlineExceeded instead. A caller of a public
// API could so hold a place in line (of MaxWaiters) for the head's whole
// wait with a request that never passes. Now a caller that must queue
// peeks first: both are told at once (0 s) with ErrWaitExceedsDeadline
// and the denial, having taken nothing; the head is served on time.
func TestAttackInf37QueuedWaiterToldAtOnce(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		l, w := newWaiter(t, core.GCRA{Rate: core.PerMinute(1), Burst: 1}, core.WaitOptions{})
		bg := context.Background()
		res, err := l.Allow(bg, "k") // the only unit
		require.NoError(t, err)
		require.True(t, res.Allowed)
		start := time.Now()
		head := make(chan time.Duration, 1)
		go func() {
			res, err := w.Wait(bg, "k")
			if err == nil && res.Allowed {
				head <- time.Since(start)
			}
			close(head)
		}()
		synctest.Wait()
		require.Equal(t, 1, w.Waiting("k"), "the head waits")

		// A cost above the burst: never admitted.
		res, err = w.WaitN(bg, "k", 2)
		require.ErrorIs(t, err, core.ErrWaitExceedsDeadline, "after %v", time.Since(start))
		require.Zero(t, time.Since(start), "a cost above the burst waited behind the head")
		require.False(t, res.Allowed)
		require.Equal(t, core.Never, res.RetryAfter)

		// A wait of a minute at least under a deadline of 30 s.
		dctx, cancel := context.WithTimeout(bg, 30*time.Second)
		defer cancel()
		res, err = w.Wait(dctx, "k")
		require.ErrorIs(t, err, core.ErrWaitExceedsDeadline, "after %v", time.Since(start))
		require.Zero(t, time.Since(start), "a wait past the deadline slept until it")
		require.False(t, res.Allowed)
		require.GreaterOrEqual(t, res.RetryAfter, time.Minute)
		require.Equal(t, 1, w.Waiting("k"), "neither kept a place in line")

		require.Equal(t, time.Minute, <-head, "the head is served on time: nothing was taken before it")
	})
}

// TestAttackInf37QueuedNeverEveryAlgorithm: for every algorithm (a quota
// of 4 a minute), a key spent, a head waiting, and a caller queued behind
// it with a cost of 5 that no wait admits: it is told at once with
// RetryAfter Never (before, it waited until the head was served).
func TestAttackInf37QueuedNeverEveryAlgorithm(t *testing.T) {
	t.Parallel()
	for _, a := range allAlgorithms(4, time.Minute) {
		synctest.Test(t, func(t *testing.T) {
			l, w := newWaiter(t, a, core.WaitOptions{})
			bg := context.Background()
			for i := 0; ; i++ {
				require.Less(t, i, 100, "%T: never denied", a)
				res, err := l.Allow(bg, "k")
				require.NoError(t, err)
				if !res.Allowed {
					break
				}
			}
			hctx, cancel := context.WithCancel(bg)
			defer cancel()
			go func() { _, _ = w.Wait(hctx, "k") }()
			synctest.Wait()
			require.Equal(t, 1, w.Waiting("k"), "%T: the head waits", a)
			start := time.Now()
			res, err := w.WaitN(bg, "k", 5)
			require.ErrorIs(t, err, core.ErrWaitExceedsDeadline, "%T", a)
			require.Zero(t, time.Since(start), "%T: a cost above the quota waited behind the head", a)
			require.Equal(t, core.Never, res.RetryAfter, "%T", a)
			cancel()
			synctest.Wait()
		})
	}
}
