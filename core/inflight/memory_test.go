package inflight_test

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/inflight"
	"github.com/floodgate-go/floodgate/core/inflight/internal/inflighttest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func newMemory(t *testing.T, limit int, opts inflight.MemoryOptions) *inflight.Memory {
	t.Helper()
	m, err := inflight.NewMemory(limit, opts)
	require.NoError(t, err)
	return m
}

// TestNewMemoryRefusesBadConfig: a limit below 1, a negative option and
// an Overflow above its documented bound (1,048,576 buckets, allocated at
// once) are refused with core.ErrInvalidConfig, never a panic: before, an
// Overflow of math.MaxInt panicked in NewMemory (makeslice: len out of
// range) and one of 1<<40 tried to allocate 16 TiB.
func TestNewMemoryRefusesBadConfig(t *testing.T) {
	for name, tc := range map[string]struct {
		limit int
		opts  inflight.MemoryOptions
	}{
		"limit 0":              {0, inflight.MemoryOptions{}},
		"limit -1":             {-1, inflight.MemoryOptions{}},
		"negative MaxKeys":     {1, inflight.MemoryOptions{MaxKeys: -1}},
		"negative Overflow":    {1, inflight.MemoryOptions{Overflow: -1}},
		"negative MaxWaiters":  {1, inflight.MemoryOptions{MaxWaiters: -1}},
		"negative MaxWaiting":  {1, inflight.MemoryOptions{MaxWaiting: -1}},
		"Overflow above 1<<20": {1, inflight.MemoryOptions{Overflow: 1<<20 + 1}},
		"Overflow 1<<40":       {1, inflight.MemoryOptions{Overflow: 1 << 40}},
		"Overflow MaxInt":      {1, inflight.MemoryOptions{Overflow: math.MaxInt}},
	} {
		require.NotPanics(t, func() {
			_, err := inflight.NewMemory(tc.limit, tc.opts)
			require.ErrorIs(t, err, core.ErrInvalidConfig, name)
		}, name)
	}
}

// TestNewMemoryAcceptsHugeBounds: the bounds that allocate nothing ahead
// (limit, MaxKeys, MaxWaiters, MaxWaiting) take any positive value,
// math.MaxInt meaning "no bound", and the largest Overflow is accepted.
func TestNewMemoryAcceptsHugeBounds(t *testing.T) {
	m := newMemory(t, math.MaxInt, inflight.MemoryOptions{MaxKeys: math.MaxInt, Overflow: 1 << 20,
		MaxWaiters: math.MaxInt, MaxWaiting: math.MaxInt})
	ctx := context.Background()
	var held []*inflight.Slot
	for range 3 {
		s, err := m.Acquire(ctx, "k")
		require.NoError(t, err)
		held = append(held, s)
	}
	require.Equal(t, 3, m.InFlight("k"))
	for _, s := range held {
		require.NoError(t, s.Release(ctx))
	}
}

// TestAttackHugeMaxKeysKeepsKeysApart: an operator meaning "no bound"
// sets MaxKeys to math.MaxInt. Before, the per-shard bound
// (MaxKeys + 63) / 64 overflowed to a negative number: the table was
// always "full", every key was counted in the 4,096 shared overflow
// buckets, and of 12,288 clients each taking one slot of a limit of 2 one
// was refused for others' requests within the first few hundred (the
// 566th in one run, with 0 keys in the table: its bucket full). Now
// every key has its own count: all 12,288 hold their slot, in the table.
func TestAttackHugeMaxKeysKeepsKeysApart(t *testing.T) {
	m := newMemory(t, 2, inflight.MemoryOptions{MaxKeys: math.MaxInt})
	ctx := context.Background()
	n := 3 * inflight.DefaultOverflow // pigeonhole: more keys than 4,096 buckets of 2 slots
	held := make([]*inflight.Slot, 0, n)
	for i := range n {
		key := "client-" + strconv.Itoa(i)
		s, err := m.Acquire(ctx, key)
		require.NoError(t, err, "%s holds no slot, yet is refused (%d keys in the table)", key, m.Keys())
		held = append(held, s)
	}
	require.Equal(t, n, m.Keys(), "every key in the table, none in an overflow bucket")
	for _, s := range held {
		require.NoError(t, s.Release(ctx))
	}
	require.Zero(t, m.Keys())
}

// tracker counts the slots held at once and the most ever held.
type tracker struct{ cur, peak atomic.Int64 }

func (k *tracker) enter() {
	n := k.cur.Add(1)
	for p := k.peak.Load(); n > p && !k.peak.CompareAndSwap(p, n); p = k.peak.Load() {
	}
}

func (k *tracker) leave() { k.cur.Add(-1) }

func TestMemory400GoroutinesNeverExceed8(t *testing.T) {
	m := newMemory(t, 8, inflight.MemoryOptions{MaxWaiters: 400})
	ctx := context.Background()
	var k tracker
	var wg sync.WaitGroup
	var served atomic.Int64
	for range 400 {
		wg.Go(func() {
			s, err := m.Wait(ctx, "k")
			if !assert.NoError(t, err) {
				return
			}
			k.enter()
			served.Add(1)
			k.leave()
			assert.NoError(t, s.Release(ctx))
		})
	}
	within.Wait(t, &wg, "the test's goroutines")
	assert.EqualValues(t, 400, served.Load())
	assert.LessOrEqual(t, k.peak.Load(), int64(8))
	assert.Equal(t, 0, m.InFlight("k"))
	assert.Equal(t, 0, m.Keys())
}

func TestMemoryAcquireAdmitsExactlyLimit(t *testing.T) {
	m := newMemory(t, 8, inflight.MemoryOptions{})
	ctx := context.Background()
	var wg sync.WaitGroup
	slots := make(chan *inflight.Slot, 400)
	var full atomic.Int64
	for range 400 {
		wg.Go(func() {
			s, err := m.Acquire(ctx, "k")
			if err != nil {
				assert.ErrorIs(t, err, inflight.ErrFull)
				full.Add(1)
				return
			}
			slots <- s
		})
	}
	within.Wait(t, &wg, "the test's goroutines")
	close(slots)
	assert.Len(t, slots, 8)
	assert.EqualValues(t, 392, full.Load())
	for s := range slots {
		require.NoError(t, s.Release(ctx))
	}
	assert.Equal(t, 0, m.InFlight("k"))
}

func TestMemoryDoubleReleaseIsHarmless(t *testing.T) {
	m := newMemory(t, 2, inflight.MemoryOptions{})
	ctx := context.Background()
	a, err := m.Acquire(ctx, "k")
	require.NoError(t, err)
	b, err := m.Acquire(ctx, "k")
	require.NoError(t, err)
	require.NoError(t, a.Release(ctx))
	same := a // another pointer to the same slot
	for range 100 {
		require.ErrorIs(t, a.Release(ctx), inflight.ErrReleased)
		require.ErrorIs(t, same.Release(ctx), inflight.ErrReleased)
	}
	require.True(t, a.Released())
	assert.Equal(t, 1, m.InFlight("k"))
	c, err := m.Acquire(ctx, "k")
	require.NoError(t, err)
	_, err = m.Acquire(ctx, "k")
	require.ErrorIs(t, err, inflight.ErrFull, "100 extra releases made no capacity")
	require.NoError(t, b.Release(ctx))
	require.NoError(t, c.Release(ctx))
	require.ErrorIs(t, (*inflight.Slot)(nil).Release(ctx), inflight.ErrReleased)
}

func TestMemoryConcurrentDoubleRelease(t *testing.T) {
	m := newMemory(t, 1, inflight.MemoryOptions{})
	ctx := context.Background()
	s, err := m.Acquire(ctx, "k")
	require.NoError(t, err)
	var wg sync.WaitGroup
	var ok atomic.Int64
	for range 50 {
		wg.Go(func() {
			if s.Release(ctx) == nil {
				ok.Add(1)
			}
		})
	}
	within.Wait(t, &wg, "the test's goroutines")
	assert.EqualValues(t, 1, ok.Load())
	assert.Equal(t, 0, m.InFlight("k"))
}

// TestMemoryFloodKeepsSlotsAndAdmitsNewcomers: a flood of twice the
// table's keys, each holding a slot, neither frees the slots a victim
// holds nor shuts newcomers out.
func TestMemoryFloodKeepsSlotsAndAdmitsNewcomers(t *testing.T) {
	const maxKeys = 64
	m := newMemory(t, 8, inflight.MemoryOptions{MaxKeys: maxKeys, Overflow: 256})
	ctx := context.Background()
	var victim []*inflight.Slot
	for range 8 {
		s, err := m.Acquire(ctx, "victim")
		require.NoError(t, err)
		victim = append(victim, s)
	}
	var flood []*inflight.Slot
	for i := range 2 * maxKeys {
		s, err := m.Acquire(ctx, fmt.Sprintf("flood-%d", i))
		if err == nil {
			flood = append(flood, s)
		}
	}
	assert.LessOrEqual(t, m.Keys(), maxKeys, "the table stays bounded")
	assert.Equal(t, 8, m.InFlight("victim"))
	_, err := m.Acquire(ctx, "victim")
	require.ErrorIs(t, err, inflight.ErrFull, "the flood freed none of the victim's slots")

	admitted := 0
	for i := range 1000 {
		s, err := m.Acquire(ctx, fmt.Sprintf("new-%d", i))
		if err == nil {
			admitted++
			require.NoError(t, s.Release(ctx))
		}
	}
	assert.GreaterOrEqual(t, admitted, 990, "newcomers are decided normally")

	for _, s := range append(victim, flood...) {
		require.NoError(t, s.Release(ctx))
	}
	assert.Equal(t, 0, m.Keys())
}

// TestMemoryOverflowKeyNeverExceedsLimit: a key counted in an overflow
// bucket stays there while it holds slots, even once the table has room,
// so it never holds Limit in the bucket and Limit more in the table.
func TestMemoryOverflowKeyNeverExceedsLimit(t *testing.T) {
	m := newMemory(t, 2, inflight.MemoryOptions{MaxKeys: 1, Overflow: 1})
	ctx := context.Background()
	// MaxKeys 1 gives every shard one key; fill every shard's table.
	var fill []*inflight.Slot
	for i := 0; m.Keys() < 64 && i < 100000; i++ {
		s, err := m.Acquire(ctx, fmt.Sprintf("fill-%d", i))
		require.NoError(t, err)
		if m.Keys() > len(fill) {
			fill = append(fill, s)
		} else {
			require.NoError(t, s.Release(ctx))
		}
	}
	require.Equal(t, 64, m.Keys())
	var held []*inflight.Slot
	for range 2 {
		s, err := m.Acquire(ctx, "k")
		require.NoError(t, err)
		held = append(held, s)
	}
	for _, s := range fill {
		require.NoError(t, s.Release(ctx))
	}
	_, err := m.Acquire(ctx, "k")
	require.ErrorIs(t, err, inflight.ErrFull, "room in the table gives k no new slots")
	for _, s := range held {
		require.NoError(t, s.Release(ctx))
	}
	s, err := m.Acquire(ctx, "k")
	require.NoError(t, err)
	require.NoError(t, s.Release(ctx))
}

func TestMemoryWaitIsFIFO(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inflighttest.WaitOrder(t, newMemory(t, 1, inflight.MemoryOptions{}), 10)
	})
}

func TestMemoryWaitCancelAndBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newMemory(t, 1, inflight.MemoryOptions{MaxWaiters: 2})
		bg := context.Background()
		held, err := m.Acquire(bg, "k")
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(bg)
		errs := make(chan error, 2)
		for range 2 {
			go func() {
				_, err := m.Wait(ctx, "k")
				errs <- err
			}()
		}
		synctest.Wait()
		require.Equal(t, 2, m.Waiting("k"))
		_, err = m.Wait(bg, "k")
		require.ErrorIs(t, err, inflight.ErrQueueFull, "refused at once beyond the bound")
		other, err := m.Wait(bg, "other")
		require.NoError(t, err, "other keys have their own line")
		require.NoError(t, other.Release(bg))
		cancel()
		synctest.Wait()
		require.ErrorIs(t, <-errs, context.Canceled)
		require.ErrorIs(t, <-errs, context.Canceled)
		assert.Equal(t, 0, m.Waiting("k"))
		assert.Equal(t, 1, m.InFlight("k"), "cancelled waiters took nothing")
		require.NoError(t, held.Release(bg))
	})
}

func TestMemoryWaitDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newMemory(t, 1, inflight.MemoryOptions{})
		bg := context.Background()
		held, err := m.Acquire(bg, "k")
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(bg, time.Second)
		defer cancel()
		_, err = m.Wait(ctx, "k")
		require.ErrorIs(t, err, context.DeadlineExceeded)
		require.NoError(t, held.Release(bg))
	})
}
