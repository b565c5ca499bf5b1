package core_test

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/store"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// peekPanicStore is the in-memory store, but a table whose OpPeek panics
// while panics is set (a store's bug, an unsupported operation).
type peekPanicStore struct {
	mem    *core.MemoryStore
	panics atomic.Bool
}

func (s *peekPanicStore) Bind(p *core.Policy) (store.Table, error) {
	t, err := s.mem.Bind(p)
	return peekPanicTable{t, s}, err
}

type peekPanicTable struct {
	store.Table
	s *peekPanicStore
}

func (t peekPanicTable) Do(ctx context.Context, req store.Request) (store.Decision, error) {
	if req.Op == store.OpPeek && t.s.panics.Load() {
		panic("rpat37: peek panics")
	}
	return t.Table.Do(ctx, req)
}

// TestAttackRpat37WaitPeekPanicLeavesLine: GCRA of 1 a minute, the key
// spent, a head waiting its minute. A caller queued behind it peeks (since
// "a Waiter's caller queued behind others peeks first") between joining
// the line and waiting in it, outside the defer that leaves the line: a
// panic of the store's Peek (net/http recovers a handler's panic, the
// server serves on) left its Turn in the line for ever. After the head was
// served at 1m, the line still held 1 waiter, and every later caller of
// the key waited behind a turn nobody leaves: a Wait with a deadline of
// 10 minutes, admissible at 2m, ended with context.DeadlineExceeded. Now
// the panicking caller leaves the line as it unwinds.
func TestAttackRpat37WaitPeekPanicLeavesLine(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		mem, err := core.NewMemoryStore(core.MemoryOptions{})
		require.NoError(t, err)
		st := &peekPanicStore{mem: mem}
		p, err := core.Single("w", core.GCRA{Rate: core.PerMinute(1), Burst: 1})
		require.NoError(t, err)
		l, err := core.NewLimiter(p, core.WithClock(bubbleClock{}), core.WithStore(st))
		require.NoError(t, err)
		w, err := core.NewWaiter(l, core.WaitOptions{})
		require.NoError(t, err)
		bg := context.Background()
		res, err := l.Allow(bg, "k")
		require.NoError(t, err)
		require.True(t, res.Allowed)

		start := time.Now()
		head := make(chan error, 1)
		go func() {
			_, err := w.Wait(bg, "k")
			head <- err
		}()
		synctest.Wait()
		require.Equal(t, 1, w.Waiting("k"), "the head waits")

		st.panics.Store(true)
		panicked := func() (v any) {
			defer func() { v = recover() }()
			_, _ = w.Wait(bg, "k")
			return nil
		}()
		require.NotNil(t, panicked, "the queued caller's peek panics")
		st.panics.Store(false)

		require.NoError(t, <-head)
		require.Equal(t, time.Minute, time.Since(start), "the head is served at 1m")
		synctest.Wait()
		assert.Equal(t, 0, w.Waiting("k"), "a turn left in the line after its caller panicked")

		ctx, cancel := context.WithTimeout(bg, 10*time.Minute)
		defer cancel()
		res, err = w.Wait(ctx, "k")
		require.NoError(t, err, "a later caller of the key waited behind a turn nobody leaves (after %v)", time.Since(start))
		require.True(t, res.Allowed)
		require.Equal(t, 2*time.Minute, time.Since(start))
	})
}
