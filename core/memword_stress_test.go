package core_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/stretchr/testify/require"
)

// stressPolicies are the policies of TestStressHotKeys: the word mode's
// two algorithms, and for contrast a multi-limit policy and a locked
// algorithm.
func stressPolicies() map[string]*core.Policy {
	return map[string]*core.Policy{
		"gcra": core.MustPolicy("s", core.Limit{Name: "a",
			Algorithm: core.GCRA{Rate: core.PerSecond(100), Burst: 400}}),
		"leaky": core.MustPolicy("s", core.Limit{Name: "a",
			Algorithm: core.LeakyBucket{Rate: core.PerSecond(100), Capacity: 400, NoDelay: 5}}),
		"multi": core.MustPolicy("s",
			core.Limit{Name: "a", Algorithm: core.GCRA{Rate: core.PerSecond(100), Burst: 400}},
			core.Limit{Name: "b", Algorithm: core.GCRA{Rate: core.PerSecond(50), Burst: 300}}),
		"token": core.MustPolicy("s", core.Limit{Name: "a",
			Algorithm: core.TokenBucket{Rate: core.PerSecond(100), Burst: 400}}),
	}
}

// stressSize is the harness's size: small by default (a cheap regression
// run), larger from FLOODGATE_STRESS (rounds, for a local run of minutes).
func stressSize() (rounds int) {
	if n, err := strconv.Atoi(os.Getenv("FLOODGATE_STRESS")); err == nil && n > 0 {
		return n
	}
	return 1
}

// TestStressHotKeys: GOMAXPROCS goroutines, started together, take
// (costs 1 to 3), peek and refund (a third of the admitted takes, each
// refunded by two goroutines at once) on three hot keys with a frozen
// clock, while another goroutine inserts new keys (rebuilds; sweeps of a
// full shard or evictions, per store) and another sets the same policy
// again (a rebind) and resets another key of the shard. Per phase, what
// each hot key kept (admitted, less the refunds that succeeded, plus a
// final drain) equals what a serial limiter admits at the phase's
// instant, and exactly one of the two refunds of a take succeeds. Between
// phases the clock moves. FLOODGATE_STRESS=n runs n rounds (a local run
// of minutes, with GOMAXPROCS 2 and 4, with and without -race); one by
// default, cheap and rarely contended on a busy machine.
func TestStressHotKeys(t *testing.T) {
	t.Parallel()
	for name, p := range stressPolicies() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for round := range stressSize() {
				for _, o := range stressStores {
					stressRound(t, p, o, uint64(round))
				}
			}
		})
	}
}

// stressStores are the stores of TestStressHotKeys: one shard that
// refuses new keys once full (sweeps), and two shards that evict (each
// hot key then holds an anchor of 20 units or more, so that a flood key of
// one is always the cheaper).
var stressStores = []core.MemoryOptions{
	{MaxKeys: 64, Shards: 1, WhenFull: core.RefuseNew},
	{MaxKeys: 64, Shards: 2, WhenFull: core.EvictCheapest},
}

func stressRound(t *testing.T, p *core.Policy, opts core.MemoryOptions, seed uint64) {
	ctx := context.Background()
	const phases, attempts, flood = 4, 60, 40
	hot := []string{"h0", "h1", "h2"}
	clk := coretest.NewClock(coretest.T0)
	ms, err := core.NewMemoryStore(opts)
	require.NoError(t, err)
	l, err := core.NewLimiter(p, core.WithStore(ms), core.WithClock(clk))
	require.NoError(t, err)
	model, err := core.NewLimiter(p, core.WithClock(clk))
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(seed, 99))
	workers := max(2, runtime.GOMAXPROCS(0))
	for phase := range phases {
		if phase > 0 {
			// Past recovery every other phase: the full shard sweeps
			// the hot keys while takes revive them.
			switch {
			case phase%2 == 0:
				clk.Advance(5 * time.Second)
			case opts.WhenFull == core.EvictCheapest:
				clk.Advance(10 * time.Millisecond) // whole units: the anchors stay the heaviest
			default:
				clk.Advance(time.Duration(rng.Int64N(int64(300 * time.Millisecond))))
			}
		}
		kept := make([]atomic.Int64, len(hot))
		anchor := int64(0)
		if opts.WhenFull == core.EvictCheapest && phase%2 == 0 {
			// (After 5 s, when the hot keys have recovered.)
			for k, key := range hot {
				r, err := l.AllowN(ctx, key, 20)
				require.NoError(t, err)
				require.True(t, r.Allowed)
				kept[k].Add(20)
				_, err = model.AllowN(ctx, key, 20)
				require.NoError(t, err)
			}
			anchor = 20
		}
		var failures atomic.Int64
		var errs sync.Map
		var wg, rwg sync.WaitGroup
		start := make(chan struct{})
		var ready atomic.Int32
		type pending struct {
			r  core.Result
			k  int
			ok *atomic.Int64
		}
		refunds := make(chan pending, workers*attempts)
		var all []pending
		var allMu sync.Mutex
		refund := func(pr pending) {
			_, err := l.Refund(ctx, hot[pr.k], pr.r)
			switch {
			case err == nil:
				pr.ok.Add(1)
			case errors.Is(err, core.ErrRefunded):
			default:
				errs.Store(err.Error(), true)
				failures.Add(1)
			}
		}
		for g := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewPCG(seed, uint64(phase*64+g)))
				<-start
				spinBarrier(&ready, int32(workers))
				for i := range attempts {
					k := min(r.IntN(2*len(hot)), len(hot)-1) // the last key the hottest
					cost := 1 + r.Int64N(3)
					res, err := l.AllowN(ctx, hot[k], cost)
					if err != nil {
						errs.Store(err.Error(), true)
						failures.Add(1)
						continue
					}
					if i%8 == 0 {
						if _, err := l.Peek(ctx, hot[k], 1); err != nil {
							failures.Add(1)
						}
					}
					if !res.Allowed {
						continue
					}
					kept[k].Add(cost)
					if r.IntN(3) == 0 {
						// Refunded twice at once: here and by a refunder.
						pr := pending{res, k, new(atomic.Int64)}
						allMu.Lock()
						all = append(all, pr)
						allMu.Unlock()
						refunds <- pr
						refund(pr)
					}
				}
			}()
		}
		for range 2 {
			rwg.Add(1)
			go func() {
				defer rwg.Done()
				for pr := range refunds {
					refund(pr)
				}
			}()
		}
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-start
			for i := range flood {
				if _, err := l.Allow(ctx, fmt.Sprintf("f%d-%d-%d", seed, phase, i)); err != nil {
					failures.Add(1)
				}
			}
		}()
		go func() {
			defer wg.Done()
			<-start
			// Rebinds, and resets of another key of the shard: each
			// reset counts the shard's epoch while the hot keys decide.
			for i := range 6 {
				if i%2 == 0 {
					if err := l.SetPolicy(p); err != nil {
						errs.Store(err.Error(), true)
						failures.Add(1)
					}
				}
				if _, err := l.AllowN(ctx, "other", 3); err != nil {
					failures.Add(1)
				}
				if err := l.Reset(ctx, "other"); err != nil {
					failures.Add(1)
				}
				runtime.Gosched()
			}
		}()
		close(start)
		within.Wait(t, &wg, "the takers")
		close(refunds)
		within.Wait(t, &rwg, "the refunders")
		doubles := 0
		for _, pr := range all {
			if pr.ok.Load() != 1 {
				doubles++
			}
			kept[pr.k].Add(-pr.r.Cost)
		}
		errs.Range(func(k, _ any) bool { t.Log(k); return true })
		require.Zero(t, failures.Load(), "errors in phase %d", phase)
		require.Zero(t, doubles, "refunds not made exactly once in phase %d", phase)
		for k, key := range hot {
			got := kept[k].Load() + drain(t, l, key)
			want := anchor + drain(t, model, key)
			require.Equal(t, want, got, "seed %d phase %d key %s: units kept", seed, phase, key)
		}
	}
}

// TestStressResetRaceRefunds: takes fill the hot key with the clock
// frozen; then its Reset races the refunds of those takes (and a flood of
// new keys: sweeps, rebuilds, evictions). Whatever the order, the key
// ends as a key never seen: a refund made before the reset gave back to
// the entry it forgot, one made after gives nothing to the new entry.
func TestStressResetRaceRefunds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for name, p := range stressPolicies() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for round := range stressSize() {
				for _, opts := range stressStores {
					clk := coretest.NewClock(coretest.T0)
					ms, err := core.NewMemoryStore(opts)
					require.NoError(t, err)
					l, err := core.NewLimiter(p, core.WithStore(ms), core.WithClock(clk))
					require.NoError(t, err)
					model, err := core.NewLimiter(p, core.WithClock(clk))
					require.NoError(t, err)
					var taken []core.Result
					for {
						r, err := l.AllowN(ctx, "hot", 2)
						require.NoError(t, err)
						if !r.Allowed {
							break
						}
						taken = append(taken, r)
					}
					var wg sync.WaitGroup
					var failures atomic.Int64
					start := make(chan struct{})
					workers := max(2, runtime.GOMAXPROCS(0))
					refundStriped(ctx, l, taken, workers, &wg, &failures, func() { <-start })
					wg.Add(2)
					go func() {
						defer wg.Done()
						<-start
						runtime.Gosched()
						if err := l.Reset(ctx, "hot"); err != nil {
							failures.Add(1)
						}
					}()
					go func() {
						defer wg.Done()
						<-start
						for i := range 20 {
							if _, err := l.Allow(ctx, fmt.Sprintf("f%d-%d", round, i)); err != nil {
								failures.Add(1)
							}
						}
					}()
					close(start)
					within.Wait(t, &wg, "the refunds and the reset")
					require.Zero(t, failures.Load())
					require.Equal(t, drain(t, model, "hot"), drain(t, l, "hot"), "round %d %+v", round, opts)
				}
			}
		})
	}
}

// refundStriped starts workers goroutines (counted in wg) that each wait
// with start, then refund every workers-th of taken on the key "hot",
// counting errors in failures.
func refundStriped(ctx context.Context, l *core.Limiter, taken []core.Result, workers int, wg *sync.WaitGroup, failures *atomic.Int64, start func()) {
	for g := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start()
			for i := g; i < len(taken); i += workers {
				if _, err := l.Refund(ctx, "hot", taken[i]); err != nil {
					failures.Add(1)
				}
			}
		}()
	}
}

// spinBarrier waits, spinning, until n goroutines have reached it: they
// then start together, where a channel's close wakes them one by one.
func spinBarrier(ready *atomic.Int32, n int32) {
	ready.Add(1)
	for ready.Load() < n {
		runtime.Gosched()
	}
}

// TestStressEvictRaceRefunds: the hot key, the lightest of a full shard,
// is evicted by a new key's insert while the refunds of its takes race
// the eviction, and is then taken afresh (one unit). Whatever the order,
// no refund of a take the evicted entry held gives anything back to the
// new entry: it ends with what a key never seen keeps after one unit.
func TestStressEvictRaceRefunds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for name, p := range stressPolicies() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for round := range stressSize() {
				clk := coretest.NewClock(coretest.T0)
				ms, err := core.NewMemoryStore(core.MemoryOptions{MaxKeys: 16, Shards: 1})
				require.NoError(t, err)
				l, err := core.NewLimiter(p, core.WithStore(ms), core.WithClock(clk))
				require.NoError(t, err)
				for i := range 15 {
					drain(t, l, fmt.Sprintf("heavy%d", i))
				}
				var taken []core.Result
				for range 10 {
					r, err := l.AllowN(ctx, "hot", 2)
					require.NoError(t, err)
					require.True(t, r.Allowed)
					taken = append(taken, r)
				}
				var wg sync.WaitGroup
				var failures atomic.Int64
				var ready atomic.Int32
				workers := max(2, runtime.GOMAXPROCS(0))
				refundStriped(ctx, l, taken, workers, &wg, &failures, func() { spinBarrier(&ready, int32(workers+1)) })
				wg.Add(1)
				go func() {
					defer wg.Done()
					spinBarrier(&ready, int32(workers+1))
					// Evicts the hot key, the lightest, then takes it afresh.
					for _, key := range []string{fmt.Sprintf("new%d", round), "hot"} {
						if r, err := l.Allow(ctx, key); err != nil || !r.Allowed {
							failures.Add(1)
						}
					}
				}()
				within.Wait(t, &wg, "the refunds and the eviction")
				require.Zero(t, failures.Load())
				model, err := core.NewLimiter(p, core.WithClock(clk))
				require.NoError(t, err)
				_, err = model.Allow(ctx, "hot")
				require.NoError(t, err)
				require.Equal(t, drain(t, model, "hot"), drain(t, l, "hot"), "round %d", round)
			}
		})
	}
}
