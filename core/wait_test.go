package core_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bubbleClock reads time.Now: inside a synctest bubble, the bubble's fake
// time, which its timers follow.
type bubbleClock struct{}

func (bubbleClock) Now() time.Time { return time.Now() }

func newWaiter(t *testing.T, a core.Algorithm, opts core.WaitOptions) (*core.Limiter, *core.Waiter) {
	t.Helper()
	p, err := core.Single("w", a)
	require.NoError(t, err)
	l, err := core.NewLimiter(p, core.WithClock(bubbleClock{}))
	require.NoError(t, err)
	w, err := core.NewWaiter(l, opts)
	require.NoError(t, err)
	return l, w
}

func TestNewWaiterRefusesBadConfig(t *testing.T) {
	_, err := core.NewWaiter(nil, core.WaitOptions{})
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	_, err = core.NewWaiter(&core.Limiter{}, core.WaitOptions{})
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	p := core.MustPolicy("p", core.Limit{Name: "p", Algorithm: core.GCRA{Rate: core.PerSecond(1)}})
	l, err := core.NewLimiter(p)
	require.NoError(t, err)
	_, err = core.NewWaiter(l, core.WaitOptions{MaxWaiters: -1})
	require.ErrorIs(t, err, core.ErrInvalidConfig)
}

// TestWaiterServesInOrderOnTime: waiters of a key are served in the order
// they came, each exactly when the limit admits it.
func TestWaiterServesInOrderOnTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, w := newWaiter(t, core.GCRA{Rate: core.PerSecond(1), Burst: 1}, core.WaitOptions{})
		ctx := context.Background()
		start := time.Now()
		var mu sync.Mutex
		var order []int
		var at []time.Duration
		var wg sync.WaitGroup
		for i := range 6 {
			wg.Go(func() {
				res, err := w.Wait(ctx, "k")
				if !assert.NoError(t, err) || !assert.True(t, res.Allowed) {
					return
				}
				mu.Lock()
				order = append(order, i)
				at = append(at, time.Since(start))
				mu.Unlock()
			})
			synctest.Wait() // waiter i has joined (or been served) before i+1 comes
		}
		wg.Wait()
		assert.Equal(t, []int{0, 1, 2, 3, 4, 5}, order)
		assert.Equal(t, []time.Duration{0, time.Second, 2 * time.Second, 3 * time.Second, 4 * time.Second, 5 * time.Second}, at)
	})
}

// TestWaiter400Goroutines: 400 waiters on 8/s with a burst of 8 are all
// served, never faster than the limit allows.
func TestWaiter400Goroutines(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, w := newWaiter(t, core.GCRA{Rate: core.PerSecond(8), Burst: 8}, core.WaitOptions{MaxWaiters: 400})
		ctx := context.Background()
		start := time.Now()
		var wg sync.WaitGroup
		var mu sync.Mutex
		var at []time.Duration
		for range 400 {
			wg.Go(func() {
				_, err := w.Wait(ctx, "k")
				assert.NoError(t, err)
				mu.Lock()
				at = append(at, time.Since(start))
				mu.Unlock()
			})
		}
		wg.Wait()
		require.Len(t, at, 400)
		// In any interval T at most 8 + 8·T admissions: the n-th (from 0)
		// is at (n−7)/8 s at the earliest, and they come exactly then.
		for n, d := range at {
			want := time.Duration(max(0, n-7)) * time.Second / 8
			require.Equal(t, want, d, "admission %d", n)
		}
	})
}

func TestWaiterBoundCancelDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l, w := newWaiter(t, core.GCRA{Rate: core.PerMinute(1), Burst: 1}, core.WaitOptions{MaxWaiters: 2})
		bg := context.Background()
		_, err := l.Allow(bg, "k") // the only unit
		require.NoError(t, err)
		start := time.Now()

		// Deadline before the wait ends: told at once, with the denial.
		dctx, dcancel := context.WithTimeout(bg, 30*time.Second)
		defer dcancel()
		res, err := w.Wait(dctx, "k")
		require.ErrorIs(t, err, core.ErrWaitExceedsDeadline)
		require.False(t, res.Allowed)
		require.Equal(t, time.Minute, res.RetryAfter)
		require.Zero(t, time.Since(start), "at once")

		// A cost no wait admits.
		_, err = w.WaitN(bg, "k", 2)
		require.ErrorIs(t, err, core.ErrWaitExceedsDeadline)

		// The bound: two wait, the third is refused at once.
		ctx, cancel := context.WithCancel(bg)
		errs := make(chan error, 2)
		for range 2 {
			go func() {
				_, err := w.Wait(ctx, "k")
				errs <- err
			}()
		}
		synctest.Wait()
		require.Equal(t, 2, w.Waiting("k"))
		_, err = w.Wait(bg, "k")
		require.ErrorIs(t, err, core.ErrWaitQueueFull)

		// Cancel: both return at once, nothing taken.
		cancel()
		require.ErrorIs(t, <-errs, context.Canceled)
		require.ErrorIs(t, <-errs, context.Canceled)
		require.Zero(t, time.Since(start))
		require.Equal(t, 0, w.Waiting("k"))
		time.Sleep(time.Minute)
		res, err = l.Peek(bg, "k", 1)
		require.NoError(t, err)
		require.True(t, res.Allowed, "the cancelled waiters took nothing")
		_, err = w.WaitN(bg, "k", 0)
		require.ErrorIs(t, err, core.ErrInvalidCost)
	})
}

// TestWaiterShapingDelay: a LeakyBucket's Delay is waited out before Wait
// returns, and refunded when the context ends during it.
func TestWaiterShapingDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l, w := newWaiter(t, core.LeakyBucket{Rate: core.PerSecond(1), Capacity: 10}, core.WaitOptions{})
		bg := context.Background()
		start := time.Now()
		for i := range 3 {
			res, err := w.Wait(bg, "k")
			require.NoError(t, err)
			require.True(t, res.Allowed)
			require.Equal(t, time.Duration(i)*time.Second, time.Since(start), "waited out the delay")
		}
		before, err := l.Peek(bg, "k", 1)
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(bg)
		done := make(chan error)
		go func() {
			_, err := w.Wait(ctx, "k")
			done <- err
		}()
		synctest.Wait()
		cancel()
		require.ErrorIs(t, <-done, context.Canceled)
		after, err := l.Peek(bg, "k", 1)
		require.NoError(t, err)
		require.Equal(t, before.Delay, after.Delay, "the cut-short admission was refunded")
	})
}
