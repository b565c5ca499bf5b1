package coretest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/within"
)

// RunPolicyChange runs the checks of core.Limiter.SetPolicy against the
// stores newStore returns (each must implement core.Rebinder's tables and,
// like Run's, decide by the caller's clock):
//
//   - for every algorithm of [Algorithms], raised and lowered, with a key
//     fresh, half used or exhausted before the change: at the change's
//     instant the key is admitted no more than a key never seen under the
//     new limit, which is no more than the new quota; an exhausted key is
//     admitted strictly less (its count was kept, not reset); and the store
//     admits exactly what the in-memory store admits;
//   - a refund of a decision taken before the change gives nothing back to
//     the limits changed since, and gives back to the unchanged ones, also
//     once the limiter decides again the very *Policy it took under;
//   - changes the kept state cannot be read under are refused, and the
//     limiter goes on with its policy;
//   - a key that used all but one unit of its quota reports, under a quota
//     lowered to a quarter or raised, what it has left between 0 and the
//     new quota, never a negative Remaining;
//   - decisions racing policy changes never pass the larger of the quotas.
func RunPolicyChange(t *testing.T, newStore NewStore) {
	RunPolicyChangeOf(t, newStore, nil)
}

// RunPolicyChangeOf is [RunPolicyChange] for a store that decides only
// the algorithms keep reports (nil: all of them), such as the local-first
// store: the checks of every algorithm run for those of [Algorithms] that
// keep accepts, and the refused changes on a policy of a FixedWindow and a
// SlidingLog, or a SlidingWindow (whose window may not change either)
// when keep refuses the SlidingLog.
func RunPolicyChangeOf(t *testing.T, newStore NewStore, keep func(core.Algorithm) bool) {
	var algs []core.Limit
	for _, l := range Algorithms() {
		if keep == nil || keep(l.Algorithm) {
			algs = append(algs, l)
		}
	}
	log := core.Limit{Name: "log", Algorithm: core.SlidingLog{Quota: 3, Window: time.Second}}
	longer := core.Limit{Name: "log", Algorithm: core.SlidingLog{Quota: 4, Window: time.Second}}
	if keep != nil && !keep(log.Algorithm) {
		log = core.Limit{Name: "log", Algorithm: core.SlidingWindow{Quota: 3, Window: time.Second}}
		longer = core.Limit{Name: "log", Algorithm: core.SlidingWindow{Quota: 3, Window: 2 * time.Second}}
	}
	runGroups(t, newStore, []group{
		{"NoOverAdmission", func(t *testing.T, s NewStore) { runChangeAdmission(t, s, algs) }},
		{"Refund", runChangeRefund},
		{"RefundEveryAlgorithm", func(t *testing.T, s NewStore) { runChangeRefundAll(t, s, algs) }},
		{"Refused", func(t *testing.T, s NewStore) { runChangeRefused(t, s, log, longer) }},
		{"RefundAfterReturn", RunPolicyReturnRefund},
		{"RemainingInRange", func(t *testing.T, s NewStore) { RunPolicyChangeRemaining(t, s, algs) }},
		{"Concurrent", runChangeConcurrent},
	})
}

// Scaled returns a, with the parameters that set how much it admits
// multiplied (up) or divided (down) by 2, keeping the state's shape (for
// SlidingLog, whose quota sets its state, the window is divided or
// multiplied instead). Every duration and emission interval of
// [Algorithms]' configurations stays a whole number of microseconds.
func Scaled(a core.Algorithm, up bool) core.Algorithm {
	f := func(n int64) int64 {
		if up {
			return 2 * n
		}
		return max(1, n/2)
	}
	rate := func(r core.Rate) core.Rate { return core.Per(f(r.Count), r.Period) }
	switch a := a.(type) {
	case core.GCRA:
		return core.GCRA{Rate: rate(a.Rate), Burst: f(a.WithDefaults().Burst)}
	case core.LeakyBucket:
		c := f(a.Capacity)
		return core.LeakyBucket{Rate: rate(a.Rate), Capacity: c, NoDelay: min(c, f(a.NoDelay))}
	case core.FixedWindow:
		a.Quota = f(a.Quota)
		return a
	case core.SlidingWindow:
		a.Quota = f(a.Quota)
		return a
	case core.TokenBucket:
		return core.TokenBucket{Rate: rate(a.Rate), Burst: f(a.WithDefaults().Burst)}
	case core.SlidingLog:
		if up {
			a.Window /= 2
		} else {
			a.Window *= 2
		}
		return a
	case core.Hybrid:
		a.Quota = f(a.Quota)
		return a
	case core.RollingWindow:
		a.Quota, a.PeriodCap = f(a.Quota), f(a.PeriodCap)
		return a
	case core.WarmUp:
		a.Rate = rate(a.Rate)
		return a
	case core.Backoff:
		a.Free = f(a.Free)
		return a
	}
	panic(fmt.Sprintf("coretest: Scaled: %T", a))
}

// drain takes cost 1 for key until a denial (at most bound times) and
// returns how many passed.
func drain(t *testing.T, l *core.Limiter, key string, bound int) int64 {
	t.Helper()
	n := int64(0)
	for range bound {
		r, err := l.Allow(context.Background(), key)
		requireNoError(t, err)
		if !r.Allowed {
			break
		}
		n++
	}
	return n
}

// changeCase is one algorithm, a change of it, and the key's use before.
type changeCase struct {
	limit core.Limit
	up    bool
	used  string // "fresh", "half" or "exhausted"
}

func (c changeCase) String() string {
	dir := "lowered"
	if c.up {
		dir = "raised"
	}
	return fmt.Sprintf("%s/%s/%s", c.limit.Name, dir, c.used)
}

// changeRun plays c on a limiter of newStore: the key used as c says at T0,
// the change at T0+1ms, then at that instant the key and a fresh key
// drained. It returns the admissions of both and the new quota.
func changeRun(t *testing.T, newStore NewStore, c changeCase) (key, fresh, quota int64) {
	t.Helper()
	const bound = 1000
	p, err := core.NewPolicy("change", c.limit)
	requireNoError(t, err)
	l, clk := limiter(t, newStore, p)
	ctx := context.Background()
	switch c.used {
	case "half":
		r, err := l.Peek(ctx, "k", 1)
		requireNoError(t, err)
		for range (r.Quota + 1) / 2 {
			_, err := l.Allow(ctx, "k")
			requireNoError(t, err)
		}
	case "exhausted":
		drain(t, l, "k", bound)
	}
	clk.Advance(time.Millisecond)
	np, err := core.NewPolicy(l.Policy().Name(), core.Limit{Name: c.limit.Name, Algorithm: Scaled(c.limit.Algorithm, c.up)})
	requireNoError(t, err)
	requireNoError(t, l.SetPolicy(np), c.String())
	requireEqual(t, np.Limits(), l.Policy().Limits(), "the limiter decides the new policy")
	r, err := l.Peek(ctx, "never-seen", 1)
	requireNoError(t, err)
	key = drain(t, l, "k", bound)
	fresh = drain(t, l, "never-seen", bound)
	return key, fresh, r.Quota
}

func runChangeAdmission(t *testing.T, newStore NewStore, algs []core.Limit) {
	var cases []changeCase
	for _, lim := range algs {
		for _, up := range []bool{true, false} {
			for _, used := range []string{"fresh", "half", "exhausted"} {
				cases = append(cases, changeCase{lim, up, used})
			}
		}
	}
	mem := func(*testing.T) core.Store {
		s, err := core.NewMemoryStore(core.MemoryOptions{})
		if err != nil {
			panic(err)
		}
		return s
	}
	concurrently(t, len(cases), 8, func(i int) string { return cases[i].String() }, func(t *testing.T, i int) {
		c := cases[i]
		key, fresh, quota := changeRun(t, newStore, c)
		assertLessOrEqual(t, key, fresh, "a key kept through the change passes no more than a key never seen")
		if _, ok := c.limit.Algorithm.(core.Backoff); ok {
			quota++ // the failure after the free ones passes, and locks the key
		}
		assertLessOrEqual(t, fresh, quota, "a key never seen passes no more than the new quota")
		if c.used == "exhausted" {
			assertTrue(t, key < fresh, "an exhausted key (%d) passes less than a key never seen (%d): its count was kept", key, fresh)
		}
		wantKey, wantFresh, _ := changeRun(t, mem, c)
		assertEqual(t, wantKey, key, "as the in-memory store decides")
		assertEqual(t, wantFresh, fresh, "as the in-memory store decides")
	})
}

func runChangeRefund(t *testing.T, newStore NewStore) {
	ctx := context.Background()
	a := core.Limit{Name: "a", Algorithm: core.FixedWindow{Quota: 5, Window: 10 * time.Second}}
	b := core.Limit{Name: "b", Algorithm: core.GCRA{Rate: core.PerSecond(1), Burst: 10}}
	p, err := core.NewPolicy("refund", a, b)
	requireNoError(t, err)
	l, clk := limiter(t, newStore, p)
	taken, err := l.Allow(ctx, "k")
	requireNoError(t, err)
	requireTrue(t, taken.Allowed)
	for range 2 {
		_, err := l.Allow(ctx, "k")
		requireNoError(t, err)
	}
	clk.Advance(time.Millisecond)
	// Lower b (a stays): a refund of the earlier take gives back to a
	// only.
	nb := core.Limit{Name: "b", Algorithm: core.GCRA{Rate: core.PerSecond(1), Burst: 8}}
	np, err := core.NewPolicy(l.Policy().Name(), a, nb)
	requireNoError(t, err)
	requireNoError(t, l.SetPolicy(np))
	before, err := l.Peek(ctx, "k", 1)
	requireNoError(t, err)
	after, err := l.Refund(ctx, "k", taken)
	requireNoError(t, err)
	ra, rb := before.Limits(), after.Limits()
	assertEqual(t, ra[0].Remaining+1, rb[0].Remaining, "the unchanged limit gets the cost back")
	assertEqual(t, ra[1].Remaining, rb[1].Remaining, "the changed limit gets nothing back")
	_, err = l.Refund(ctx, "k", taken)
	assertErrorIs(t, err, core.ErrRefunded, "a decision is refunded once, across a change too")

	// Raise a too: a refund of a take made under the first policy gives
	// nothing back anywhere now.
	second, err := l.Allow(ctx, "k")
	requireNoError(t, err)
	requireTrue(t, second.Allowed)
	na := core.Limit{Name: "a", Algorithm: core.FixedWindow{Quota: 50, Window: 10 * time.Second}}
	np2, err := core.NewPolicy(l.Policy().Name(), na, nb)
	requireNoError(t, err)
	requireNoError(t, l.SetPolicy(np2))
	before, err = l.Peek(ctx, "k", 1)
	requireNoError(t, err)
	after, err = l.Refund(ctx, "k", second)
	requireNoError(t, err)
	assertEqual(t, before.Limits()[0].Remaining, after.Limits()[0].Remaining, "changed since the take: nothing back")
	assertEqual(t, before.Limits()[1].Remaining+1, after.Limits()[1].Remaining, "unchanged since the take: given back")
}

// runChangeRefused checks the refused changes on a policy of a FixedWindow
// and log, a limit named "log" whose change to longer is refused.
func runChangeRefused(t *testing.T, newStore NewStore, log, longer core.Limit) {
	base := []core.Limit{
		{Name: "fixed", Algorithm: core.FixedWindow{Quota: 5, Window: 10 * time.Second}},
		log,
	}
	bad := map[string][]core.Limit{
		"renamed limit":   {{Name: "fixed2", Algorithm: base[0].Algorithm}, base[1]},
		"other algorithm": {{Name: "fixed", Algorithm: core.GCRA{Rate: core.PerSecond(1)}}, base[1]},
		"fewer limits":    {base[0]},
		"window":          {{Name: "fixed", Algorithm: core.FixedWindow{Quota: 5, Window: 20 * time.Second}}, base[1]},
		"anchoring":       {{Name: "fixed", Algorithm: core.FixedWindow{Quota: 5, Window: 10 * time.Second, Anchored: true}}, base[1]},
		"log length":      {base[0], longer},
	}
	p, err := core.NewPolicy("refused", base...)
	requireNoError(t, err)
	l, _ := limiter(t, newStore, p)
	own := l.Policy()
	for name, limits := range bad {
		np, err := core.NewPolicy(own.Name(), limits...)
		requireNoError(t, err)
		assertErrorIs(t, l.SetPolicy(np), core.ErrPolicyChange, name)
		assertTrue(t, l.Policy() == own, "%s: the policy is kept", name)
	}
	renamed, err := core.NewPolicy("other", base...)
	requireNoError(t, err)
	assertErrorIs(t, l.SetPolicy(renamed), core.ErrPolicyChange, "renamed policy")
	assertErrorIs(t, l.SetPolicy(nil), core.ErrInvalidConfig, "nil policy")
	assertEqual(t, int64(3), drain(t, l, "k", 100), "the old policy decides on")
}

func runChangeConcurrent(t *testing.T, newStore NewStore) {
	ctx := context.Background()
	for _, lim := range []core.Limit{
		{Name: "fixed", Algorithm: core.FixedWindow{Quota: 20, Window: 10 * time.Second}},
		{Name: "gcra", Algorithm: core.GCRA{Rate: core.PerSecond(10), Burst: 20}},
		{Name: "token", Algorithm: core.TokenBucket{Rate: core.PerSecond(10), Burst: 20}},
	} {
		t.Run(lim.Name, func(t *testing.T) {
			p, err := core.NewPolicy("concurrent", lim)
			requireNoError(t, err)
			l, _ := limiter(t, newStore, p)
			versions := []*core.Policy{l.Policy()}
			for _, up := range []bool{true, false} {
				np, err := core.NewPolicy(l.Policy().Name(), core.Limit{Name: lim.Name, Algorithm: Scaled(lim.Algorithm, up)})
				requireNoError(t, err)
				versions = append(versions, np)
			}
			const workers, each = 8, 20
			var wg sync.WaitGroup
			var mu sync.Mutex
			admitted := int64(0)
			stop := make(chan struct{})
			changer := make(chan struct{})
			go func() {
				defer close(changer)
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					requireNoError(t, l.SetPolicy(versions[i%len(versions)]))
					if i >= 10000 {
						<-stop
						return
					}
				}
			}()
			for range workers {
				wg.Go(func() {
					n := int64(0)
					for range each {
						r, err := l.Allow(ctx, "k")
						if err != nil {
							t.Error(err)
							return
						}
						if r.Allowed {
							n++
						}
					}
					mu.Lock()
					admitted += n
					mu.Unlock()
				})
			}
			within.Wait(t, &wg, "the test's goroutines")
			close(stop)
			within.Recv(t, changer, "the policy changer's end")
			// The clock stands still: whatever the interleaving, no more
			// than the largest version's quota passes (twice the base's).
			assertLessOrEqual(t, admitted, 40, "admitted at one instant across changes")
			assertTrue(t, admitted >= 10, "admitted %d: at least the smallest version's quota", admitted)
		})
	}
}

// runChangeRefundAll: for every algorithm raised and lowered, a refund of
// a take made before the change changes nothing (the limit changed since).
func runChangeRefundAll(t *testing.T, newStore NewStore, algs []core.Limit) {
	ctx := context.Background()
	var cases []changeCase
	for _, lim := range algs {
		for _, up := range []bool{true, false} {
			cases = append(cases, changeCase{lim, up, "half"})
		}
	}
	concurrently(t, len(cases), 8, func(i int) string { return cases[i].String() }, func(t *testing.T, i int) {
		c := cases[i]
		p, err := core.NewPolicy("refund-all", c.limit)
		requireNoError(t, err)
		l, clk := limiter(t, newStore, p)
		taken, err := l.Allow(ctx, "k")
		requireNoError(t, err)
		requireTrue(t, taken.Allowed)
		_, err = l.Allow(ctx, "k")
		requireNoError(t, err)
		clk.Advance(time.Millisecond)
		np, err := core.NewPolicy(l.Policy().Name(), core.Limit{Name: c.limit.Name, Algorithm: Scaled(c.limit.Algorithm, c.up)})
		requireNoError(t, err)
		requireNoError(t, l.SetPolicy(np))
		before, err := l.Peek(ctx, "k", 1)
		requireNoError(t, err)
		after, err := l.Refund(ctx, "k", taken)
		requireNoError(t, err)
		assertEqual(t, before.Allowed, after.Allowed, "nothing given back")
		assertEqual(t, before.Remaining, after.Remaining, "nothing given back")
		assertEqual(t, before.RetryAfter, after.RetryAfter, "nothing given back")
		assertEqual(t, before.ResetAfter, after.ResetAfter, "nothing given back")
	})
}

// RunPolicyChangeRemaining checks, for each of algs, that a key that used
// all but one unit of its quota, then changed to a quota lowered to a
// quarter (below what it used) or raised, reports what it has left (peeked
// and taken) between 0 and the new quota, for each limit and the Result.
func RunPolicyChangeRemaining(t *testing.T, newStore NewStore, algs []core.Limit) {
	ctx := context.Background()
	var cases []changeCase
	for _, lim := range algs {
		for _, up := range []bool{true, false} {
			cases = append(cases, changeCase{lim, up, "all but one"})
		}
	}
	concurrently(t, len(cases), 8, func(i int) string { return cases[i].String() }, func(t *testing.T, i int) {
		c := cases[i]
		p, err := core.NewPolicy("remaining", c.limit)
		requireNoError(t, err)
		l, clk := limiter(t, newStore, p)
		r, err := l.Peek(ctx, "k", 1)
		requireNoError(t, err)
		for range r.Quota - 1 {
			_, err := l.Allow(ctx, "k")
			requireNoError(t, err)
		}
		clk.Advance(time.Millisecond)
		a := Scaled(c.limit.Algorithm, c.up)
		if !c.up {
			a = Scaled(a, false)
		}
		np, err := core.NewPolicy(l.Policy().Name(), core.Limit{Name: c.limit.Name, Algorithm: a})
		requireNoError(t, err)
		requireNoError(t, l.SetPolicy(np))
		peek, err := l.Peek(ctx, "k", 1)
		requireNoError(t, err)
		take, err := l.Allow(ctx, "k")
		requireNoError(t, err)
		for _, res := range []core.Result{peek, take} {
			assertTrue(t, res.Remaining >= 0, "%v: Remaining %d: what the key has left is never negative", a, res.Remaining)
			for _, lr := range res.Limits() {
				assertTrue(t, lr.Remaining >= 0 && lr.Remaining <= lr.Quota, "%v: limit %q: Remaining %d of %d", a, lr.Name, lr.Remaining, lr.Quota)
			}
		}
	})
}

// RunPolicyReturnRefund checks that a refund of a decision taken before a
// change gives nothing back to the limit changed since, when the limiter
// decides again the very *Policy it took under (an operator's toggle, an
// Overrides provider handing out one *Policy per plan): on a TokenBucket
// of 1 a second (burst 5), 5 takes; a change to 100 a second (burst 5),
// whose refill gives the bucket back within 50 ms, and its 5 takes; a
// change back to the first *Policy and the refunds of the 5 first takes:
// the key is admitted nothing more at once (the fast limit's refill gave
// those units back already).
func RunPolicyReturnRefund(t *testing.T, newStore NewStore) {
	ctx := context.Background()
	p, err := core.NewPolicy("return", core.Limit{Name: "b", Algorithm: core.TokenBucket{Rate: core.PerSecond(1), Burst: 5}})
	requireNoError(t, err)
	l, clk := limiter(t, newStore, p)
	slow := l.Policy()
	fast, err := core.NewPolicy(slow.Name(), core.Limit{Name: "b", Algorithm: core.TokenBucket{Rate: core.PerSecond(100), Burst: 5}})
	requireNoError(t, err)
	var taken []core.Result
	for range 5 {
		r, err := l.Allow(ctx, "k")
		requireNoError(t, err)
		requireTrue(t, r.Allowed)
		taken = append(taken, r)
	}
	requireNoError(t, l.SetPolicy(fast))
	clk.Advance(50 * time.Millisecond)
	assertEqual(t, int64(5), drain(t, l, "k", 10), "the fast limit's bucket, refilled")
	requireNoError(t, l.SetPolicy(slow))
	for _, r := range taken {
		_, err := l.Refund(ctx, "k", r)
		requireNoError(t, err)
	}
	assertEqual(t, int64(0), drain(t, l, "k", 10), "nothing given back by the refunds of takes made before the changes")
}
