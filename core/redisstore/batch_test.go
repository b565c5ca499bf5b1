package redisstore_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/within"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBatchedConcurrent: many simultaneous decisions, which the workers
// coalesce into batch script calls, on a frozen caller clock. See
// concurrentTotals.
func TestBatchedConcurrent(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	c := srv.Client(t)
	concurrentTotals(t, c, redisstore.Options{}, true)
	checkTTLs(t, c)
}

// TestBatchedNoFunctionCommand: on a Redis that refuses FUNCTION, the
// batches that found no function are decided with an EVAL per decision,
// and EVALSHA after.
func TestBatchedNoFunctionCommand(t *testing.T) {
	t.Parallel()
	srv := startRedis(t, "--rename-command", "FUNCTION", "")
	c := srv.Client(t)
	concurrentTotals(t, c, redisstore.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, false)
	assert.Positive(t, commands(t, c, "evalsha"))
	checkTTLs(t, c)
}

// concurrentTotals drives thousands of simultaneous decisions — a hot key,
// many cold ones, costs 1 to 3 (one cost per key), takes and peeks, five
// policies among which one of three limits — through one store, the
// caller's clock frozen: whatever the order Redis decides them in, each
// key then admits as many takes as the memory store does for the same
// requests one after another at that instant (the hot key exactly its
// limit). With coalesce, fewer script calls than decisions reach Redis.
func concurrentTotals(t *testing.T, c redis.UniversalClient, opts redisstore.Options, coalesce bool) {
	t.Helper()
	ctx := context.Background()
	policies := []*core.Policy{
		core.MustPolicy("b-gcra", core.Limit{Name: "g", Algorithm: core.GCRA{Rate: core.Per(1, 24*time.Hour), Burst: 40}}),
		core.MustPolicy("b-fixed", core.Limit{Name: "f", Algorithm: core.FixedWindow{Quota: 40, Window: time.Hour, Anchored: true}}),
		core.MustPolicy("b-token", core.Limit{Name: "t", Algorithm: core.TokenBucket{Rate: core.Per(1, time.Hour), Burst: 40}}),
		core.MustPolicy("b-log", core.Limit{Name: "l", Algorithm: core.SlidingLog{Quota: 40, Window: time.Hour}}),
		core.MustPolicy("b-multi",
			core.Limit{Name: "a", Algorithm: core.GCRA{Rate: core.Per(1, time.Hour), Burst: 30}},
			core.Limit{Name: "b", Algorithm: core.FixedWindow{Quota: 25, Window: time.Hour}},
			core.Limit{Name: "c", Algorithm: core.SlidingWindow{Quota: 50, Window: time.Hour}}),
	}
	type req struct {
		p        int
		key      string
		cost     int64
		peek     bool
		admitted bool
	}
	var reqs []*req
	for p := range policies {
		for range 400 {
			reqs = append(reqs, &req{p: p, key: "hot", cost: 1})
		}
		for range 50 {
			reqs = append(reqs, &req{p: p, key: "hot", cost: 1, peek: true})
		}
		for k := range 30 {
			for range 12 {
				reqs = append(reqs, &req{p: p, key: fmt.Sprint("cold", k), cost: 1 + int64(k%3)})
			}
		}
	}
	clk := newClock() // never advanced
	mem, err := core.NewMemoryStore(core.MemoryOptions{})
	require.NoError(t, err)
	opts.CallerClock, opts.ExpirySlack, opts.Timeout = true, time.Hour, 20*time.Second
	s := newStore(t, c, opts)
	var got, want []*core.Limiter
	for _, p := range policies {
		got = append(got, limiterOn(t, s, p, core.WithClock(clk)))
		want = append(want, limiterOn(t, mem, p, core.WithClock(clk)))
	}
	calls := scriptCalls(t, c)
	var wg sync.WaitGroup
	start := make(chan struct{})
	errs := make(chan error, len(reqs))
	for i, r := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if r.peek {
				_, err := got[r.p].Peek(ctx, r.key, r.cost)
				errs <- err
				return
			}
			var res core.Result
			if err := got[r.p].Take(ctx, r.key, r.cost, &res); err != nil {
				errs <- fmt.Errorf("request %d: %w", i, err)
				return
			}
			r.admitted = res.Allowed
		}()
	}
	close(start)
	within.Wait(t, &wg, "the test's goroutines")
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	calls = scriptCalls(t, c) - calls
	t.Logf("%d decisions in %d script calls", len(reqs), calls)
	if coalesce {
		assert.Less(t, calls, int64(len(reqs)), "decisions coalesced")
	}

	type pk struct {
		p   int
		key string
	}
	total, ref := map[pk]int{}, map[pk]int{}
	for _, r := range reqs {
		if r.peek {
			continue
		}
		if r.admitted {
			total[pk{r.p, r.key}]++
		}
		var res core.Result
		require.NoError(t, want[r.p].Take(ctx, r.key, r.cost, &res))
		if res.Allowed {
			ref[pk{r.p, r.key}]++
		}
	}
	assert.Equal(t, ref, total)
	for p := range 4 {
		assert.Equal(t, 40, total[pk{p, "hot"}], "hot key of %s admits its limit", policies[p].Name())
	}
	assert.Equal(t, 25, total[pk{4, "hot"}], "the multi-limit hot key admits its tightest limit")
	assert.Equal(t, 12, total[pk{4, "cold0"}])
	assert.Equal(t, 12, total[pk{4, "cold1"}], "cost 2: 24 ≤ 25")
	assert.Equal(t, 8, total[pk{4, "cold2"}], "cost 3: 8 × 3 ≤ 25")
}
