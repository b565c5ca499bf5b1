package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/core/store"
	"github.com/floodgate-go/floodgate/internal/within"
)

// TestDifferential replays 2,000 random traces (40,000 operations;
// FuzzRedisMatchesMemory explores further) — policies of one to three
// limits of every algorithm, random costs, peeks, refunds, resets and
// instants — on the in-memory store and on Redis with the same injected
// time, and requires identical results. Instants and configurations are
// whole microseconds (see the package doc for what rounds otherwise).
//
// Each trace has limiters, a clock and keys of its own; the traces of one
// policy share its Redis table, bound once, as a service's limiters do,
// and 64 run at once through 2 pipelines: concurrent decisions of a policy
// are decided in one batch call.
//
// The policies are drawn from a pool of diffPolicies random combinations
// (every algorithm alone among them), chosen when each policy was a Redis
// library of its own, whose loading cost the server more than a trace's
// decisions; the library is shared now, and each policy costs its first
// call a build of its functions (see TestPoliciesShareOneLibrary).
func TestDifferential(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	c := srv.Client(t)
	s := &bindOnce{s: newStore(t, c, redisstore.Options{CallerClock: true, ExpirySlack: time.Hour, Pipelines: 2})}
	traces := 2000 // a mutation check chose the count: see diffBackoffPerPolicy
	if testing.Short() {
		traces = 1000
	}
	pool := diffPolicies(rand.New(rand.NewPCG(1, 99)))
	const workers = 64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 99))
			for i := w; i < traces; i += workers {
				if err := diffTrace(rng, s, i, s.policy(pool[rng.IntN(len(pool))])); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	within.Wait(t, &wg, "the test's goroutines")
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	checkTTLs(t, c)
}

// TestDifferentialBackoff replays 1,000 random traces of random Backoff
// configurations (alone or beside another algorithm) on both stores: Free
// 1 to 4 (costs above it are denied with Never), lockouts that outgrow
// the window or not, Max reached after one to four doublings, forgiveness
// just above Max or long after it. Each configuration is a policy of its
// own: diffBackoffPerPolicy traces share one, as TestDifferential's traces
// share theirs.
func TestDifferentialBackoff(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	c := srv.Client(t)
	s := newStore(t, c, redisstore.Options{CallerClock: true, ExpirySlack: time.Hour, Pipelines: 2})
	traces := 1000
	if testing.Short() {
		traces = 200
	}
	const workers = 64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			var p *core.Policy
			for n, i := 0, w; i < traces; n, i = n+1, i+workers {
				if n%diffBackoffPerPolicy == 0 {
					p = randomBackoffPolicy(rng, i)
				}
				if err := diffTrace(rng, s, i, p); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	within.Wait(t, &wg, "the test's goroutines")
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	checkTTLs(t, c)
}

// diffBackoffPerPolicy is how many traces of TestDifferentialBackoff, each
// with keys and a clock of its own, decide on one random configuration.
//
// The trace counts of the two differential tests were halved (4,000 and
// 2,000 before) with the policies shared, after a mutation check: six
// mutants of the Lua (GCRA's `diff > tol` as `>=`, its refund clamp,
// SlidingWindow's window roll and refund boundaries, Backoff's cost check
// and window expiry) got the same verdicts from the larger and the smaller
// suites, the three caught failing first within traces 0 to 21
// (TestDifferential) and 0 to 203 (TestDifferentialBackoff). Each worker
// replays its traces in the same order whatever the count, so that a
// smaller count runs a prefix of the larger suite's traces.
const diffBackoffPerPolicy = 8

// randomBackoffPolicy returns a policy of a random µs-aligned Backoff,
// with another algorithm of coretest.Algorithms one time in four.
func randomBackoffPolicy(rng *rand.Rand, i int) *core.Policy {
	ms := func(lo, hi int64) time.Duration { return time.Duration(lo+rng.Int64N(hi-lo+1)) * time.Millisecond }
	base := ms(100, 2000)
	mx := base << rng.IntN(5)
	if rng.IntN(3) == 0 {
		mx += ms(0, 700)
	}
	b := core.Backoff{Free: 1 + rng.Int64N(4), Window: ms(300, 6000), Base: base, Max: mx, Forgive: mx + ms(0, 15000)}
	ls := []core.Limit{{Name: "backoff", Algorithm: b}}
	if rng.IntN(4) == 0 {
		algs := coretest.Algorithms()
		if o := algs[rng.IntN(len(algs))]; o.Name != "backoff" {
			ls = append(ls, o)
		}
	}
	return core.MustPolicy(fmt.Sprintf("diff-backoff-%d", i), ls...)
}

// diffPolicies returns the policies TestDifferential draws from, as
// indexes into coretest.Algorithms: every algorithm alone, then random
// combinations of two or three (randomLimits), 64 in all.
func diffPolicies(rng *rand.Rand) [][]int {
	var pool [][]int
	for i := range coretest.Algorithms() {
		pool = append(pool, []int{i})
	}
	for len(pool) < 64 {
		if l := randomLimits(rng); len(l) > 1 {
			pool = append(pool, l)
		}
	}
	return pool
}

// randomLimits returns one to three distinct algorithms of
// coretest.Algorithms, by index.
func randomLimits(rng *rand.Rand) []int {
	n := 1 + rng.IntN(3)
	if rng.IntN(2) == 0 {
		n = 1
	}
	return rng.Perm(len(coretest.Algorithms()))[:n]
}

// bindOnce is a store binding each policy once: the limiters of one policy
// share its table.
type bindOnce struct {
	s        core.Store
	mu       sync.Mutex
	policies map[string]*core.Policy
	tables   map[*core.Policy]store.Table
}

// policy returns the policy of the limits of coretest.Algorithms at
// indexes, the same for the same indexes.
func (b *bindOnce) policy(indexes []int) *core.Policy {
	name := fmt.Sprint("diff-", indexes)
	b.mu.Lock()
	defer b.mu.Unlock()
	if p, ok := b.policies[name]; ok {
		return p
	}
	algs := coretest.Algorithms()
	ls := make([]core.Limit, len(indexes))
	for j, k := range indexes {
		ls[j] = algs[k]
	}
	p := core.MustPolicy(name, ls...)
	if b.policies == nil {
		b.policies = map[string]*core.Policy{}
	}
	b.policies[name] = p
	return p
}

func (b *bindOnce) Bind(p *core.Policy) (store.Table, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if tb, ok := b.tables[p]; ok {
		return tb, nil
	}
	tb, err := b.s.Bind(p)
	if err != nil {
		return nil, err
	}
	if b.tables == nil {
		b.tables = map[*core.Policy]store.Table{}
	}
	b.tables[p] = tb
	return tb, nil
}

func diffTrace(rng *rand.Rand, s core.Store, i int, p *core.Policy) error {
	clk := coretest.NewClock(coretest.T0.Add(time.Duration(rng.Int64N(1e9)) * time.Microsecond))
	got, err := core.NewLimiter(p, core.WithStore(s), core.WithClock(clk))
	if err != nil {
		return err
	}
	ref, err := core.NewLimiter(p, core.WithClock(clk))
	if err != nil {
		return err
	}
	ctx := context.Background()
	keys := [2]string{fmt.Sprint("t", i, ":k0"), fmt.Sprint("t", i, ":k1")}
	var lastGot, lastRef [2]core.Result
	for step := range 20 {
		switch r := rng.IntN(10); {
		case r < 3:
		case r < 8:
			clk.Advance(time.Duration(rng.Int64N(1500000)) * time.Microsecond)
		default:
			clk.Advance(time.Duration(rng.Int64N(20)) * time.Second)
		}
		k := rng.IntN(2)
		key := keys[k]
		cost := 1 + rng.Int64N(3)
		if rng.IntN(20) == 0 {
			cost = 1 + rng.Int64N(8)
		}
		var g, r core.Result
		var eg, er error
		op := rng.IntN(20)
		switch {
		case op < 13:
			g, eg = got.AllowN(ctx, key, cost)
			r, er = ref.AllowN(ctx, key, cost)
			if r.Taken() || rng.IntN(2) == 0 {
				lastGot[k], lastRef[k] = g, r
			}
		case op < 16:
			g, eg = got.Peek(ctx, key, cost)
			r, er = ref.Peek(ctx, key, cost)
		case op < 19:
			g, eg = got.Refund(ctx, key, lastGot[k])
			r, er = ref.Refund(ctx, key, lastRef[k])
			lastGot[k], lastRef[k] = core.Result{}, core.Result{}
		default:
			eg, er = got.Reset(ctx, key), ref.Reset(ctx, key)
		}
		at := clk.Now()
		where := func() string { // only on a failure: formatting each step costs more than deciding it
			return fmt.Sprintf("trace %d (%v) step %d op %d cost %d at +%v", i, p.Limits(), step, op, cost, at.Sub(coretest.T0))
		}
		if !errors.Is(eg, er) {
			return fmt.Errorf("%s: error %v, want %v", where(), eg, er)
		}
		if g.Taken() != r.Taken() {
			return fmt.Errorf("%s: taken %v, want %v", where(), g.Taken(), r.Taken())
		}
		gl, rl := g.Limits(), r.Limits()
		if (gl == nil) != (rl == nil) || !slices.Equal(gl, rl) || g.Allowed != r.Allowed || g.Name != r.Name ||
			g.Remaining != r.Remaining || g.RetryAfter != r.RetryAfter || g.ResetAfter != r.ResetAfter || g.Delay != r.Delay {
			return fmt.Errorf("%s:\n got  %+v\n want %+v", where(), gl, rl)
		}
	}
	return nil
}
