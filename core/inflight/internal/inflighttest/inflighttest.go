// Package inflighttest holds the checks every concurrency limiter of
// floodgate (inflight.Memory, redisinflight.Limiter) must pass alike, so
// that each is written once. It is internal to package inflight's tree.
package inflighttest

import (
	"context"
	"sync"
	"testing"

	"github.com/floodgate-go/floodgate/core/inflight"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Waiter is the limiter under test.
type Waiter interface {
	Acquire(ctx context.Context, key string) (*inflight.Slot, error)
	Wait(ctx context.Context, key string) (*inflight.Slot, error)
	Waiting(key string) int
}

// WaitOrder checks that n waiters of key "k" on l, a limiter of one slot
// per key that only its own releases wake, take the slot in the order
// they joined its line: each joins once the one before is in the line,
// then the slot held before they came is released.
func WaitOrder(t *testing.T, l Waiter, n int) {
	t.Helper()
	ctx := context.Background()
	held, err := l.Acquire(ctx, "k")
	require.NoError(t, err)
	var mu sync.Mutex
	var order []int
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			s, err := l.Wait(ctx, "k")
			if !assert.NoError(t, err) {
				return
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			assert.NoError(t, s.Release(ctx))
		})
		within.Until(t, "waiter i joining the line", func() bool { return l.Waiting("k") > i })
		require.Equal(t, i+1, l.Waiting("k"))
	}
	require.NoError(t, held.Release(ctx))
	within.Wait(t, &wg, "the waiters")
	want := make([]int, n)
	for i := range want {
		want[i] = i
	}
	assert.Equal(t, want, order)
}
