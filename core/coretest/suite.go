package coretest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/store"
	"github.com/floodgate-go/floodgate/internal/within"
)

// T0 is the instant the suite's schedules start at.
var T0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// NewStore returns a store for one subtest: a new, empty one, or one store
// shared by every call. The suite gives each limiter it binds a policy of
// its own name, so no two limiters meet on one key of a shared store; a
// store with a small MaxKeys should be new for each call, as the suite
// holds many keys at once.
type NewStore func(t *testing.T) core.Store

// Run runs the conformance suite against the stores newStore returns: a
// table of behaviours at fixed instants of a fake clock, all-or-nothing
// policies, refunds, resets, key isolation, exact admission under
// concurrency, and a differential check against the in-memory store on
// random traces of every algorithm, shadow limits, and the heavy-hitter
// sketch of core.WithTopKeys.
//
// Independent parts run concurrently, each on its own limiter and fake
// clock (what each checks is decided by its own schedule, never by
// scheduling): a store is used from many goroutines at once, as in
// service, and a store that decides concurrent requests in one round trip
// (the Redis store) gets through the suite in a fraction of the time.
//
// Under go test -short, the random parts are shorter, as with [RunShort].
func Run(t *testing.T, newStore NewStore) { run(t, newStore, testing.Short()) }

// RunShort runs the suite as [Run] does under go test -short: its
// Differential replays 50 random traces (300), its LateRefunds 10
// schedules per algorithm (40), its Concurrent 100 calls per goroutine
// (1,000); the other parts are whole. It is for a further configuration
// of a store whose decisions Run already checks at full length with the
// same code (another transport to the same scripts, another topology):
// there the long random parts would replay that code, and what the
// configuration changes shows in every part.
func RunShort(t *testing.T, newStore NewStore) { run(t, newStore, true) }

func run(t *testing.T, newStore NewStore, short bool) {
	runGroups(t, newStore, []group{
		{"Table", runTable},
		{"AllOrNothing", runAllOrNothing},
		{"RefundAndReset", runRefundAndReset},
		{"RefundOnce", runRefundOnce},
		{"RefundRace", runRefundRace},
		{"LateRefunds", func(t *testing.T, ns NewStore) { runLateRefunds(t, ns, short) }},
		{"KeyIsolation", runKeyIsolation},
		{"Concurrent", func(t *testing.T, ns NewStore) { runConcurrent(t, ns, short) }},
		{"Differential", func(t *testing.T, ns NewStore) { runDifferential(t, ns, short) }},
		{"Shadow", runShadow},
		{"TopKeys", runTopKeys},
	})
}

// group is a named part of a suite.
type group struct {
	name string
	run  func(*testing.T, NewStore)
}

// runGroups runs the groups concurrently, each as a subtest.
func runGroups(t *testing.T, newStore NewStore, groups []group) {
	concurrently(t, len(groups), len(groups), func(i int) string { return groups[i].name }, func(t *testing.T, i int) {
		groups[i].run(t, newStore)
	})
}

// concurrently runs f(t, i) for each i < n as the subtest name(i), at most
// limit at once, and returns when all have ended. The subtests are started
// from goroutines (t.Run is safe for that) rather than marked parallel:
// -parallel, GOMAXPROCS by default, would let only a few run at once.
func concurrently(t *testing.T, n, limit int, name func(int) string, f func(*testing.T, int)) {
	t.Helper()
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			t.Run(name(i), func(t *testing.T) { f(t, i) })
		})
	}
	within.Wait(t, &wg, "the test's goroutines")
}

var policySeq atomic.Int64

// limiter binds a policy deciding as p, under a name of its own (see
// NewStore), to a store of newStore on a fake clock reading T0.
func limiter(t *testing.T, newStore NewStore, p *core.Policy) (*core.Limiter, *Clock) {
	t.Helper()
	own, err := core.NewPolicy(fmt.Sprintf("%s#%d", p.Name(), policySeq.Add(1)), p.Limits()...)
	requireNoError(t, err)
	clk := NewClock(T0)
	l, err := core.NewLimiter(own, core.WithStore(newStore(t)), core.WithClock(clk))
	requireNoError(t, err)
	return l, clk
}

// step is one operation of a table case and what it must report.
type step struct {
	at        time.Duration // since T0
	op        store.Op
	cost      int64
	allowed   bool
	remaining int64
	retry     time.Duration // RetryAfter; checked when the step is denied
	reset     time.Duration // ResetAfter; checked when non-zero
	delay     time.Duration
}

func take(at time.Duration, cost int64, allowed bool, remaining int64, retry, reset time.Duration) step {
	return step{at: at, op: store.OpTake, cost: cost, allowed: allowed, remaining: remaining, retry: retry, reset: reset}
}

func runSteps(t *testing.T, l *core.Limiter, clk *Clock, key string, steps []step) {
	t.Helper()
	ctx := context.Background()
	var last core.Result
	for i, s := range steps {
		clk.Set(T0.Add(s.at))
		var r core.Result
		var err error
		switch s.op {
		case store.OpTake:
			r, err = l.AllowN(ctx, key, s.cost)
		case store.OpPeek:
			r, err = l.Peek(ctx, key, s.cost)
		case store.OpRefund:
			r, err = l.Refund(ctx, key, last)
		case store.OpReset:
			requireNoError(t, l.Reset(ctx, key), "step %d", i)
			continue
		}
		requireNoError(t, err, "step %d", i)
		msg := fmt.Sprintf("step %d at %v", i, s.at)
		assertEqual(t, s.allowed, r.Allowed, msg)
		assertEqual(t, s.remaining, r.Remaining, msg)
		if !s.allowed {
			assertEqual(t, s.retry, r.RetryAfter, msg)
		} else {
			assertZero(t, r.RetryAfter, msg)
		}
		if s.reset != 0 {
			assertEqual(t, s.reset, r.ResetAfter, msg)
		}
		assertEqual(t, s.delay, r.Delay, msg)
		if s.op == store.OpTake {
			last = r
		}
	}
}

const sec = time.Second

func runTable(t *testing.T, newStore NewStore) {
	cases := tableCases()
	concurrently(t, len(cases), len(cases), func(i int) string { return cases[i].name }, func(t *testing.T, i int) {
		p, err := core.Single(cases[i].name, cases[i].alg)
		requireNoError(t, err)
		l, clk := limiter(t, newStore, p)
		runSteps(t, l, clk, "key", cases[i].steps)
	})
}

type tableCase struct {
	name  string
	alg   core.Algorithm
	steps []step
}

// tableCases are hand-derived schedules, one or more per algorithm.
func tableCases() []tableCase {
	return []tableCase{
		{"GCRA", core.GCRA{Rate: core.PerMinute(3)}, []step{
			take(0, 1, true, 2, 0, 20*sec),
			take(0, 1, true, 1, 0, 40*sec),
			take(0, 1, true, 0, 0, 60*sec),
			take(1*sec, 1, false, 0, 19*sec, 59*sec),
			take(20*sec, 1, true, 0, 0, 60*sec),
			take(20*sec, 4, false, 0, core.Never, 60*sec),
			{at: 80 * sec, op: store.OpPeek, cost: 1, allowed: true, remaining: 2, reset: 20 * sec},
			take(80*sec, 2, true, 1, 0, 40*sec),
			{at: 80 * sec, op: store.OpRefund, cost: 2, allowed: true, remaining: 2, reset: 20 * sec},
			take(80*sec, 3, true, 0, 0, 60*sec),
			take(80*sec, 1, false, 0, 20*sec, 60*sec),
			{at: 80 * sec, op: store.OpReset},
			take(80*sec, 3, true, 0, 0, 60*sec),
		}},
		// T0 is 5 s into an epoch-aligned 10 s window.
		{"FixedWindow", core.FixedWindow{Quota: 3, Window: 10 * sec}, []step{
			take(0, 1, true, 2, 0, 5*sec),
			take(0, 2, true, 0, 0, 5*sec),
			take(1*sec, 1, false, 0, 4*sec, 4*sec),
			take(5*sec, 3, true, 0, 0, 10*sec),
			take(5*sec, 4, false, 0, core.Never, 10*sec),
		}},
		// An entry counts while now − t < 10 s.
		{"SlidingLog", core.SlidingLog{Quota: 2, Window: 10 * sec}, []step{
			take(0, 1, true, 1, 0, 10*sec),
			take(3*sec, 1, true, 0, 0, 10*sec),
			take(5*sec, 1, false, 0, 5*sec, 8*sec),
			take(10*sec, 1, true, 0, 0, 10*sec),
			take(12*sec, 1, false, 0, 1*sec, 8*sec),
		}},
		// 0.25 token/s, burst 2: every figure is exact in binary.
		{"TokenBucket", core.TokenBucket{Rate: core.Per(1, 4*sec), Burst: 2}, []step{
			take(0, 2, true, 0, 0, 8*sec),
			take(1*sec, 1, false, 0, 3*sec, 7*sec),
			take(4*sec, 1, true, 0, 0, 8*sec),
		}},
		// I = 2 s, room for 3, only the first of a burst undelayed.
		{"LeakyBucket", core.LeakyBucket{Rate: core.Per(1, 2*sec), Capacity: 3, NoDelay: 1}, []step{
			{op: store.OpTake, cost: 1, allowed: true, remaining: 2, reset: 2 * sec},
			{op: store.OpTake, cost: 1, allowed: true, remaining: 1, reset: 4 * sec, delay: 2 * sec},
			{op: store.OpTake, cost: 1, allowed: true, remaining: 0, reset: 6 * sec, delay: 4 * sec},
			take(0, 1, false, 0, 2*sec, 6*sec),
		}},
		// Bursty: 2 in the window [0, 10 s); spent, so smooth with I = 5 s:
		// one unit at the window's end, the next at 15 s.
		{"Hybrid", core.Hybrid{Quota: 2, Window: 10 * sec}, []step{
			take(0, 1, true, 1, 0, 0),
			take(1*sec, 1, true, 0, 0, 0),
			take(2*sec, 1, false, 0, 8*sec, 0),
			take(10*sec, 1, true, 0, 0, 0),
			take(10*sec, 1, false, 0, 5*sec, 0),
			take(15*sec, 1, true, 0, 0, 0),
			take(15*sec, 1, false, 0, 5*sec, 0),
		}},
	}
}

// runAllOrNothing checks that a denial by one limit changes no limit.
func runAllOrNothing(t *testing.T, newStore NewStore) {
	p, err := core.NewPolicy("two",
		core.Limit{Name: "burst", Algorithm: core.GCRA{Rate: core.PerSecond(1), Burst: 5}},
		core.Limit{Name: "slow", Algorithm: core.GCRA{Rate: core.PerHour(3)}})
	requireNoError(t, err)
	l, clk := limiter(t, newStore, p)
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		r, err := l.Allow(ctx, "k")
		requireNoError(t, err)
		requireTrue(t, r.Allowed)
	}
	// "slow" is spent; "burst" has 2 left and must keep them through denials.
	for i := 0; i < 10; i++ {
		r, err := l.Allow(ctx, "k")
		requireNoError(t, err)
		requireFalse(t, r.Allowed)
		assertEqual(t, "slow", r.Name)
		assertEqual(t, 20*time.Minute, r.RetryAfter)
		ls := r.Limits()
		requireLen(t, ls, 2)
		assertTrue(t, ls[0].Allowed)
		assertEqual(t, int64(2), ls[0].Remaining)
		assertFalse(t, ls[1].Allowed)
	}
	clk.Set(T0.Add(20 * time.Minute))
	r, err := l.AllowN(ctx, "k", 1)
	requireNoError(t, err)
	requireTrue(t, r.Allowed)
	assertEqual(t, int64(4), r.Limits()[0].Remaining, "the burst limit was refilled, not charged by the denials")
}

func runRefundAndReset(t *testing.T, newStore NewStore) {
	p, err := core.Single("r", core.GCRA{Rate: core.PerMinute(10)})
	requireNoError(t, err)
	l, _ := limiter(t, newStore, p)
	ctx := context.Background()
	r, err := l.AllowN(ctx, "k", 7)
	requireNoError(t, err)
	requireTrue(t, r.Allowed)
	assertEqual(t, int64(3), r.Remaining)
	after, err := l.Refund(ctx, "k", r)
	requireNoError(t, err)
	assertEqual(t, int64(9), after.Remaining, "a peek of 1 after the refund")
	_, err = l.Refund(ctx, "k", after)
	assertErrorIs(t, err, core.ErrNotTaken)
	denied, err := l.AllowN(ctx, "k", 11)
	requireNoError(t, err)
	_, err = l.Refund(ctx, "k", denied)
	assertErrorIs(t, err, core.ErrNotTaken)
	r, err = l.AllowN(ctx, "k", 10)
	requireNoError(t, err)
	requireTrue(t, r.Allowed)
	requireNoError(t, l.Reset(ctx, "k"))
	r, err = l.AllowN(ctx, "k", 10)
	requireNoError(t, err)
	assertTrue(t, r.Allowed, "reset forgets the key")
	_, err = l.AllowN(ctx, "k", 0)
	assertErrorIs(t, err, core.ErrInvalidCost)
}

func runKeyIsolation(t *testing.T, newStore NewStore) {
	p, err := core.Single("iso", core.GCRA{Rate: core.PerHour(2)})
	requireNoError(t, err)
	l, _ := limiter(t, newStore, p)
	ctx := context.Background()
	for _, k := range []string{"a", "b", "", "a|b", "{a}"} {
		for i := 0; i < 2; i++ {
			r, err := l.Allow(ctx, k)
			requireNoError(t, err)
			requireTrue(t, r.Allowed, "key %q", k)
		}
		r, err := l.Allow(ctx, k)
		requireNoError(t, err)
		requireFalse(t, r.Allowed, "key %q", k)
	}
}

// runConcurrent: 64 goroutines × 1,000 calls on one key with burst 100 and
// a negligible rate admit exactly 100.
func runConcurrent(t *testing.T, newStore NewStore, short bool) {
	goroutines, calls := 64, 1000
	if short {
		calls = 100
	}
	p, err := core.Single("c", core.GCRA{Rate: core.PerDay(1), Burst: 100})
	requireNoError(t, err)
	l, _ := limiter(t, newStore, p)
	var admitted atomic.Int64
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < calls; i++ {
				r, err := l.Allow(context.Background(), "hot")
				if err == nil && r.Allowed {
					admitted.Add(1)
				}
			}
		}()
	}
	within.Wait(t, &wg, "the test's goroutines")
	assertEqual(t, int64(100), admitted.Load())
}

// runDifferential replays random traces against the store under test and
// a reference in-memory store, and requires identical decisions. Each
// trace is a subtest of its own limiters, clock and random source, 16 at
// once.
func runDifferential(t *testing.T, newStore NewStore, short bool) {
	traces := 300
	if short {
		traces = 50
	}
	algs := Algorithms()
	concurrently(t, traces, 16, func(i int) string { return fmt.Sprint(algs[i%len(algs)].Name, "-", i) }, func(t *testing.T, i int) {
		a := algs[i%len(algs)]
		p, err := core.Single(a.Name, a.Algorithm)
		requireNoError(t, err)
		got, clk := limiter(t, newStore, p)
		ref, err := core.NewLimiter(p, core.WithClock(clk))
		requireNoError(t, err)
		replay(t, rand.New(rand.NewPCG(7, uint64(i))), clk, got, ref, a.Name)
	})
}

func replay(t *testing.T, rng *rand.Rand, clk *Clock, got, ref *core.Limiter, name string) {
	t.Helper()
	ctx := context.Background()
	var lastGot, lastRef core.Result
	// Every earlier decision, with its key: refunds pick any of them, late
	// ones (partly drained), repeated ones and foreign-key ones included.
	type pair struct {
		key      string
		got, ref core.Result
	}
	var past []pair
	for s := 0; s < 40; s++ {
		// Whole microseconds: stores may keep time in µs (the Redis store
		// does, as Lua numbers are doubles); every configuration of
		// Algorithms is µs-aligned too.
		clk.Advance(time.Duration(rng.Int64N(2e6)) * time.Microsecond)
		key := traceKeys[rng.IntN(3)]
		cost := 1 + rng.Int64N(3)
		var g, r core.Result
		var eg, er error
		switch op := rng.IntN(10); {
		case op < 7:
			g, eg = got.AllowN(ctx, key, cost)
			r, er = ref.AllowN(ctx, key, cost)
			lastGot, lastRef = g, r
			past = append(past, pair{key, g, r})
		case op < 8:
			g, eg = got.Peek(ctx, key, cost)
			r, er = ref.Peek(ctx, key, cost)
		case op < 9 && len(past) > 0 && rng.IntN(2) == 0:
			p := past[rng.IntN(len(past))]
			g, eg = got.Refund(ctx, p.key, p.got)
			r, er = ref.Refund(ctx, p.key, p.ref)
		case op < 9:
			g, eg = got.Refund(ctx, key, lastGot)
			r, er = ref.Refund(ctx, key, lastRef)
		default:
			eg, er = got.Reset(ctx, key), ref.Reset(ctx, key)
		}
		if reflect.DeepEqual(er, eg) && r.Allowed == g.Allowed && r.Remaining == g.Remaining &&
			r.RetryAfter == g.RetryAfter && r.ResetAfter == g.ResetAfter && r.Delay == g.Delay {
			continue // the usual case, checked without formatting a message
		}
		requireEqual(t, er, eg, "%s step %d", name, s)
		requireEqual(t, r.Allowed, g.Allowed, "%s step %d", name, s)
		requireEqual(t, r.Remaining, g.Remaining, "%s step %d", name, s)
		requireEqual(t, r.RetryAfter, g.RetryAfter, "%s step %d", name, s)
		requireEqual(t, r.ResetAfter, g.ResetAfter, "%s step %d", name, s)
		requireEqual(t, r.Delay, g.Delay, "%s step %d", name, s)
	}
}

var traceKeys = [...]string{"k0", "k1", "k2"}
