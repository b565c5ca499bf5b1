package core_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hotKeyLimits are the policies of the concurrency tests: the word mode's
// lock-free algorithms and, for comparison, a locked one: 1000 units at
// once, 1000 more per second.
var hotKeyLimits = []core.Limit{
	{Name: "gcra", Algorithm: core.GCRA{Rate: core.PerSecond(1000), Burst: 1000}},
	{Name: "leaky", Algorithm: core.LeakyBucket{Rate: core.PerSecond(1000), Capacity: 1000, NoDelay: 10}},
	{Name: "token", Algorithm: core.TokenBucket{Rate: core.PerSecond(1000), Burst: 1000}},
}

// drain takes cost 1 for key at the clock's instant until it is denied (at
// most 10,000 times) and returns how many passed.
func drain(t *testing.T, l *core.Limiter, key string) int64 {
	t.Helper()
	for n := range int64(10_000) {
		r, err := l.Allow(context.Background(), key)
		require.NoError(t, err)
		if !r.Allowed {
			return n
		}
	}
	t.Fatalf("%s never denied", key)
	return 0
}

// TestHotKeyExactUnderConcurrency: many goroutines decide for one hot key
// at once, refunding a quarter of what passes and peeking, while another
// floods the same shard with new keys: inserts, incremental sweeps,
// evictions, tombstones and rebuilds that freeze and move the hot key's
// state under the lock-free takes. The clock stands still within a phase
// and moves between phases; each phase ends by draining the key. What a
// phase kept (admitted, less what its refunds gave back, plus the drain)
// must equal exactly what a sequential limiter admits at the same
// instants: a lost update, a refund applied twice or lost, or a take
// landing in a stale copy of the state shows as a difference.
//
// With EvictCheapest the clock moves less than a second a phase, so that
// the hot key keeps more debt than a flood key's one unit and is never the
// one evicted (which would forget units by design). With RefuseNew the
// shard stays full of flood keys and is swept whole; every other phase the
// clock moves two seconds, so that the hot key has recovered and is swept
// too, exactly, while the phase's first takes revive it.
func TestHotKeyExactUnderConcurrency(t *testing.T) {
	for _, whenFull := range []core.WhenFull{core.EvictCheapest, core.RefuseNew} {
		for _, lim := range hotKeyLimits {
			t.Run(fmt.Sprintf("%s/whenfull=%d", lim.Name, whenFull), func(t *testing.T) {
				hotPhases(t, lim, whenFull)
			})
		}
	}
}

func hotPhases(t *testing.T, lim core.Limit, whenFull core.WhenFull) {
	ctx := context.Background()
	// At most 63 flood keys a phase: when the RefuseNew shard of 64 is
	// swept whole, the hot key always finds a slot.
	const goroutines, attempts, phases, floodPerPhase = 8, 300, 16, 63
	p := core.MustPolicy("hot", lim)
	clk := coretest.NewClock(coretest.T0)
	ms, err := core.NewMemoryStore(core.MemoryOptions{MaxKeys: 64, Shards: 1, WhenFull: whenFull})
	require.NoError(t, err)
	l, err := core.NewLimiter(p, core.WithStore(ms), core.WithClock(clk))
	require.NoError(t, err)
	model, err := core.NewLimiter(p, core.WithClock(clk))
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(7, 8))
	// The hot key first, before any flood key.
	kept0 := drain(t, l, "hot")
	require.Equal(t, drain(t, model, "hot"), kept0)
	for phase := range phases {
		switch {
		case whenFull == core.RefuseNew && phase%2 == 1:
			clk.Advance(2 * time.Second)
		default:
			clk.Advance(time.Duration(rng.Int64N(int64(900 * time.Millisecond))))
		}
		var kept, failures atomic.Int64
		var wg sync.WaitGroup
		start := make(chan struct{})
		for g := range goroutines {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for i := range attempts {
					r, err := l.Allow(ctx, "hot")
					if err != nil {
						failures.Add(1)
						continue
					}
					if i%16 == 0 {
						if _, err := l.Peek(ctx, "hot", 1); err != nil {
							failures.Add(1)
						}
					}
					if !r.Allowed {
						continue
					}
					kept.Add(1)
					if (g+i)%4 == 0 {
						// At the take's instant a refund gives back the
						// whole unit.
						if _, err := l.Refund(ctx, "hot", r); err != nil {
							failures.Add(1)
						} else {
							kept.Add(-1)
						}
					}
				}
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for i := range floodPerPhase {
				if _, err := l.Allow(ctx, fmt.Sprintf("flood-%d-%d", phase, i)); err != nil {
					failures.Add(1)
				}
			}
		}()
		close(start)
		within.Wait(t, &wg, "the test's goroutines")
		require.Zero(t, failures.Load(), "errors in phase %d", phase)
		got := kept.Load() + drain(t, l, "hot")
		want := drain(t, model, "hot")
		require.Equal(t, want, got, "units kept in phase %d", phase)
	}
}

// TestHotKeyBoundUnderConcurrency: goroutines decide for one hot key while
// moving the clock on themselves, so that decisions arrive with instants
// out of order (a caller's instant older than the state's). However they
// interleave, at most Burst + ⌈T/I⌉ units pass over the run's span T, and
// at least the Burst of the first instant.
func TestHotKeyBoundUnderConcurrency(t *testing.T) {
	ctx := context.Background()
	const goroutines, attempts = 8, 1000
	for _, lim := range hotKeyLimits[:2] { // the algorithms with that bound
		t.Run(lim.Name, func(t *testing.T) {
			p := core.MustPolicy("hot", lim)
			clk := coretest.NewClock(coretest.T0)
			l, err := core.NewLimiter(p, core.WithClock(clk))
			require.NoError(t, err)
			var passed, failures atomic.Int64
			var wg sync.WaitGroup
			start := make(chan struct{})
			for g := range goroutines {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					for i := range attempts {
						if (g+i)%3 == 0 {
							clk.Advance(time.Millisecond / 2)
						}
						r, err := l.Allow(ctx, "hot")
						if err != nil {
							failures.Add(1)
						}
						if r.Allowed {
							passed.Add(1)
						}
					}
				}()
			}
			close(start)
			within.Wait(t, &wg, "the test's goroutines")
			require.Zero(t, failures.Load())
			span := clk.Now().Sub(coretest.T0)
			bound := 1000 + int64((span+time.Millisecond-1)/time.Millisecond)
			assert.LessOrEqual(t, passed.Load(), bound, "over %v", span)
			assert.GreaterOrEqual(t, passed.Load(), int64(1000))
		})
	}
}

// TestRefundNamesEveryTake: at one instant, take and refund the hot key
// over and over (each take leaves the same state as the one before, once
// refunded): every refund gives its unit back once, and only once, however
// the decisions happen to leave equal states.
func TestRefundNamesEveryTake(t *testing.T) {
	ctx := context.Background()
	for _, lim := range hotKeyLimits {
		t.Run(lim.Name, func(t *testing.T) {
			clk := coretest.NewClock(coretest.T0)
			l, err := core.NewLimiter(core.MustPolicy("hot", lim), core.WithClock(clk))
			require.NoError(t, err)
			var taken []core.Result
			for range 100 {
				r, err := l.Allow(ctx, "hot")
				require.NoError(t, err)
				require.True(t, r.Allowed)
				_, err = l.Refund(ctx, "hot", r)
				require.NoError(t, err, "a refund of a take equal to an earlier one")
				taken = append(taken, r)
			}
			for _, r := range taken {
				_, err := l.Refund(ctx, "hot", r)
				require.ErrorIs(t, err, core.ErrRefunded)
			}
			assert.Equal(t, int64(1000), drain(t, l, "hot"), "every unit back, none twice")
		})
	}
}

// TestRefundAfterResetWithClockStepBack: a reset read an instant older
// than a take it follows (the callers' clocks disagree), so the limiter's
// own record of resets, by instant, does not cover the take. The memory
// store's record, by the order of changes, does: the refund gives nothing
// back to the entry the key was given afresh.
func TestRefundAfterResetWithClockStepBack(t *testing.T) {
	ctx := context.Background()
	for _, lim := range hotKeyLimits {
		t.Run(lim.Name, func(t *testing.T) {
			clk := coretest.NewClock(coretest.T0.Add(time.Second))
			l, err := core.NewLimiter(core.MustPolicy("hot", lim), core.WithClock(clk))
			require.NoError(t, err)
			old, err := l.Allow(ctx, "hot")
			require.NoError(t, err)
			require.True(t, old.Allowed)
			clk.Set(coretest.T0) // the reset's caller reads an older instant
			require.NoError(t, l.Reset(ctx, "hot"))
			clk.Set(coretest.T0.Add(time.Second))
			require.Equal(t, int64(1000), drain(t, l, "hot"), "the reset forgot the take")
			_, err = l.Refund(ctx, "hot", old)
			require.NoError(t, err)
			assert.Zero(t, drain(t, l, "hot"), "the refund gave back a unit the new entry never held")
		})
	}
}
