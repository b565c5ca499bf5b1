package core_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/internal/race"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The latest instant a limiter decides at (README: 2189-03-16T23:50:27.641081855Z).
var attackMaxInstant = time.Unix(0, int64(1<<63-1)-2*(int64(1)<<60))

// attackScales are the magnitudes random configurations draw from: from a
// nanosecond to about 36 years.
var attackScales = []time.Duration{
	1, 7, time.Microsecond, 13 * time.Microsecond, time.Millisecond, 100 * time.Millisecond,
	time.Second, 7 * time.Second, time.Minute, time.Hour, 24 * time.Hour, 365 * 24 * time.Hour,
	time.Duration(1) << 59, time.Duration(1) << 60,
}

var attackCounts = []int64{1, 1, 2, 3, 5, 10, 17, 100, 1000, 1 << 20, 1 << 31, 1 << 40, 1 << 52, 1 << 62}

func pickDur(rng *rand.Rand) time.Duration {
	d := attackScales[rng.IntN(len(attackScales))]
	if rng.IntN(3) == 0 && d > 1 {
		d = time.Duration(1 + rng.Int64N(int64(d)))
	}
	return d
}

func pickCount(rng *rand.Rand, small bool) int64 {
	if small {
		return 1 + rng.Int64N(12)
	}
	c := attackCounts[rng.IntN(len(attackCounts))]
	if rng.IntN(3) == 0 && c > 1 {
		c = 1 + rng.Int64N(c)
	}
	return c
}

// randomAlgorithm returns a valid random configuration of a random
// algorithm, extreme parameters included.
func attackAlgorithm(rng *rand.Rand) core.Algorithm {
	for {
		small := rng.IntN(2) == 0
		var a core.Algorithm
		switch rng.IntN(12) {
		case 0:
			a = core.GCRA{Rate: core.Per(pickCount(rng, small), pickDur(rng)), Burst: pickCount(rng, small) * int64(rng.IntN(2))}
		case 1:
			a = core.TokenBucket{Rate: core.Per(pickCount(rng, small), pickDur(rng)), Burst: pickCount(rng, small) * int64(rng.IntN(2))}
		case 2:
			c := pickCount(rng, small)
			a = core.LeakyBucket{Rate: core.Per(pickCount(rng, small), pickDur(rng)), Capacity: c, NoDelay: rng.Int64N(c + 1)}
		case 3:
			a = core.FixedWindow{Quota: pickCount(rng, small), Window: pickDur(rng), Anchored: rng.IntN(2) == 0}
		case 4:
			a = core.SlidingLog{Quota: 1 + rng.Int64N(12), Window: pickDur(rng), CountRejected: rng.IntN(2) == 0}
		case 5:
			a = core.SlidingWindow{Quota: pickCount(rng, small), Window: pickDur(rng)}
		case 6:
			a = core.Hybrid{Quota: pickCount(rng, small), Window: pickDur(rng)}
		case 7:
			p := pickDur(rng)
			n := 1 + rng.Int64N(8)
			q := pickCount(rng, small)
			var pc int64
			if rng.IntN(2) == 0 {
				pc = 1 + rng.Int64N(q)
			}
			a = core.RollingWindow{Quota: q, Window: p * time.Duration(n), Period: p, PeriodCap: pc}
		case 8:
			cf := 0.0
			if rng.IntN(2) == 0 {
				cf = 1 + 5*rng.Float64()
			}
			a = core.WarmUp{Rate: core.Per(pickCount(rng, small), pickDur(rng)), WarmUp: pickDur(rng), ColdFactor: cf}
		default:
			a = core.Backoff{Free: pickCount(rng, true), Window: pickDur(rng) * time.Duration(rng.IntN(2)),
				Base: pickDur(rng) * time.Duration(rng.IntN(2)), Max: pickDur(rng) * time.Duration(rng.IntN(2)),
				Forgive: pickDur(rng) * time.Duration(rng.IntN(2))}
		}
		if a.Validate() == nil {
			return a
		}
	}
}

// scaleOf is a duration the algorithm's state changes at: what traces step
// by.
func scaleOf(a core.Algorithm) time.Duration {
	switch a := a.(type) {
	case core.GCRA:
		return a.Rate.Interval()
	case core.TokenBucket:
		return a.Rate.Interval()
	case core.LeakyBucket:
		return a.Rate.Interval()
	case core.FixedWindow:
		return a.Window
	case core.SlidingLog:
		return a.Window
	case core.SlidingWindow:
		return a.Window
	case core.Hybrid:
		return a.Window
	case core.RollingWindow:
		return a.Period
	case core.WarmUp:
		return a.Rate.Interval()
	case core.Backoff:
		return a.WithDefaults().Base
	}
	return time.Second
}

func quotaOf(a core.Algorithm) int64 {
	p := core.MustPolicy("q", core.Limit{Name: "q", Algorithm: a})
	l, _ := core.NewLimiter(p)
	r, _ := l.Peek(context.Background(), "k", 1)
	return r.Quota
}

// attackTrace drives a random trace through l and checks, at every step,
// the promises every algorithm makes:
//   - Peek decides as the take at the same instant;
//   - a denial changes no state (but for CountRejected);
//   - an admitted take has RetryAfter 0, a denied one a positive one;
//   - Retry-After is exact: a peek of the same cost passes at now+RetryAfter
//     and fails 1 ns before;
//   - at now+ResetAfter the key decides as a key never seen.
func attackTrace(t *testing.T, rng *rand.Rand, p *core.Policy, start time.Time, steps int) {
	t.Helper()
	ctx := context.Background()
	clk := coretest.NewClock(start)
	l, err := core.NewLimiter(p, core.WithClock(clk))
	if err != nil {
		t.Fatal(err)
	}
	var scale, maxQ int64 = 1 << 62, 1
	penalising, revealing := false, true
	for _, lim := range p.Limits() {
		scale = min(scale, int64(scaleOf(lim.Algorithm)))
		maxQ = max(maxQ, quotaOf(lim.Algorithm))
		if s, ok := lim.Algorithm.(core.SlidingLog); ok && s.CountRejected {
			penalising = true
		}
		switch lim.Algorithm.(type) {
		case core.RollingWindow, core.Backoff, core.WarmUp, core.TokenBucket:
			revealing = false
		}
	}
	latest := start
	var hist []string
	fresh := 0
	setAt := func(at time.Time) bool {
		if at.Before(time.Unix(0, 0)) || at.After(attackMaxInstant) {
			return false
		}
		clk.Set(at)
		return true
	}
	for i := 0; i < steps; i++ {
		d := traceStep(rng, max(scale, 1), max(min(scale, (1<<62)/4)*4, 1))
		at := latest.Add(time.Duration(d))
		if !setAt(at) {
			continue
		}
		if at.After(latest) {
			latest = at
		}
		var cost int64 = 1
		switch rng.IntN(5) {
		case 0:
			cost = 1 + rng.Int64N(min(maxQ, 1<<40))
		case 1:
			cost = maxQ
		case 2:
			cost = min(maxQ+1, 1<<62)
		}
		key := "k"
		peek, err := l.Peek(ctx, key, cost)
		if err != nil {
			t.Fatalf("step %d: peek: %v", i, err)
		}
		res, err := l.AllowN(ctx, key, cost)
		if err != nil {
			t.Fatalf("step %d: take: %v", i, err)
		}
		hist = append(hist, fmt.Sprintf("+%v cost %d: %v %+v", at.Sub(start), cost, res.Allowed, res.Limits()))
		where := fmt.Sprintf("%v: step %d at %v (+%v from start) cost %d\n%s", p.Limits(), i, at.UTC(), at.Sub(start), cost, strings.Join(hist, "\n"))
		if peek.Allowed != res.Allowed || (!penalising && peek.RetryAfter != res.RetryAfter) {
			t.Fatalf("%s: peek said allowed=%v retry %v, the take allowed=%v retry %v", where, peek.Allowed, peek.RetryAfter, res.Allowed, res.RetryAfter)
		}
		if res.Allowed {
			if res.RetryAfter != 0 {
				t.Fatalf("%s: admitted with RetryAfter %v", where, res.RetryAfter)
			}
		} else {
			if res.RetryAfter <= 0 {
				t.Fatalf("%s: denied with RetryAfter %v", where, res.RetryAfter)
			}
			if !penalising {
				again, err := l.Peek(ctx, key, cost)
				if err != nil {
					t.Fatal(err)
				}
				if fmt.Sprint(again.Limits()) != fmt.Sprint(peek.Limits()) {
					t.Fatalf("%s: a denial changed the state:\nbefore %+v\nafter  %+v", where, peek.Limits(), again.Limits())
				}
			}
			if ra := res.RetryAfter; ra != core.Never {
				if setAt(at.Add(ra - 1)) {
					r, err := l.Peek(ctx, key, cost)
					if err != nil {
						t.Fatal(err)
					}
					if r.Allowed {
						t.Fatalf("%s: RetryAfter %v, but a peek passes 1 ns before: %+v", where, ra, r.Limits())
					}
				}
				if setAt(at.Add(ra)) {
					r, err := l.Peek(ctx, key, cost)
					if err != nil {
						t.Fatal(err)
					}
					if !r.Allowed {
						t.Fatalf("%s: RetryAfter %v, but a peek then is denied: %+v", where, ra, r.Limits())
					}
				}
				clk.Set(at)
			}
		}
		// ResetAfter: from then on the key is as a key never seen.
		if rng.IntN(4) == 0 {
			var reset time.Duration
			for _, lr := range res.Limits() {
				reset = max(reset, lr.ResetAfter)
			}
			// asFresh peeks key and a key never seen at the clock's instant.
			asFresh := func() (bool, []core.LimitResult, []core.LimitResult) {
				fresh++
				r, _ := l.Peek(ctx, key, 1)
				n, _ := l.Peek(ctx, fmt.Sprint("fresh", fresh), 1)
				return fmt.Sprint(r.Limits()) == fmt.Sprint(n.Limits()), r.Limits(), n.Limits()
			}
			if setAt(at.Add(reset)) {
				if same, k, n := asFresh(); !same {
					t.Fatalf("%s: at ResetAfter %v the key is not fresh:\nkey   %+v\nfresh %+v", where, reset, k, n)
				}
			}
			// (Only where a peek shows the whole state: a RollingWindow's
			// ResetAfter counts units a period cap can hide from every
			// decision, Backoff keeps its lockout count, WarmUp and
			// TokenBucket fractions of a permit a peek may not show.)
			if reset > 0 && revealing && setAt(at.Add(reset-1)) {
				if same, k, _ := asFresh(); same {
					t.Fatalf("%s: ResetAfter %v, but the key is as fresh 1 ns before:\nkey   %+v", where, reset, k)
				}
			}
			clk.Set(at)
		}
	}
}

func attackStarts(rng *rand.Rand, scale time.Duration) time.Time {
	switch rng.IntN(4) {
	case 0:
		return time.Unix(0, rng.Int64N(int64(max(scale, 1))))
	case 1:
		return attackMaxInstant.Add(-time.Duration(rng.Int64N(int64(max(min(scale*8, 1<<61), 1)))))
	default:
		return t0.Add(time.Duration(rng.Int64N(int64(time.Hour))))
	}
}

func TestAttackPropertiesOneLimit(t *testing.T) {
	t.Parallel()
	propertiesOneLimit(t, 11, traceCount(200))
}

func propertiesOneLimit(t *testing.T, seed uint64, configs int) {
	rng := rand.New(rand.NewPCG(seed, 12))
	for c := 0; c < configs; c++ {
		a := attackAlgorithm(rng)
		p := core.MustPolicy("p", core.Limit{Name: "a", Algorithm: a})
		attackTrace(t, rng, p, attackStarts(rng, scaleOf(a)), 60)
	}
}

func TestAttackPropertiesPolicies(t *testing.T) {
	t.Parallel()
	propertiesPolicies(t, 13, traceCount(150))
}

func propertiesPolicies(t *testing.T, seed uint64, configs int) {
	rng := rand.New(rand.NewPCG(seed, 14))
	for c := 0; c < configs; c++ {
		n := 2 + rng.IntN(2)
		var ls []core.Limit
		scale := time.Duration(1 << 62)
		for i := 0; i < n; i++ {
			a := attackAlgorithm(rng)
			scale = min(scale, scaleOf(a))
			ls = append(ls, core.Limit{Name: fmt.Sprint("l", i), Algorithm: a})
		}
		attackTrace(t, rng, core.MustPolicy("p", ls...), attackStarts(rng, scale), 60)
	}
}

// TestAttackReportedResetIsFresh: a TokenBucket or WarmUp that a policy's
// other limit denies reports its state as it stands; its ResetAfter must be
// when that state is full (cold), in the arithmetic later decisions use.
// The TokenBucket computed it from the bucket refilled to now, another
// float path, and came out 2 ns early: at now+ResetAfter it still lacked
// 1e-15 of a token, and a take of the whole burst was denied. (WarmUp's
// case: TestAttackWarmUpReportedReset.)
func TestAttackReportedResetIsFresh(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct {
		a    core.Algorithm
		wait time.Duration
	}{
		{core.TokenBucket{Rate: core.Per(7, 365*24*time.Hour), Burst: 5}, 45671027},
		{core.WarmUp{Rate: core.Per(10, 7*time.Second), WarmUp: 7 * time.Second}, 700 * time.Millisecond},
	} {
		clk := coretest.NewClock(t0)
		l := newLimiter(t, clk,
			core.Limit{Name: "second", Algorithm: core.FixedWindow{Quota: 1, Window: time.Second, Anchored: true}},
			core.Limit{Name: "x", Algorithm: tc.a})
		r, err := l.Allow(ctx, "k")
		require.NoError(t, err)
		require.True(t, r.Allowed)
		clk.Advance(tc.wait)
		r, err = l.Allow(ctx, "k")
		require.NoError(t, err)
		require.False(t, r.Allowed)
		reset := r.Limits()[1].ResetAfter
		clk.Advance(reset)
		fresh, err := l.Peek(ctx, "never seen", 1)
		require.NoError(t, err)
		got, err := l.Peek(ctx, "k", 1)
		require.NoError(t, err)
		assert.Equal(t, fresh.Limits()[1], got.Limits()[1], "%v: %v after its ResetAfter", tc.a, reset)
	}
}

// TestAttackWarmUpReportedReset replays the trace that found the WarmUp
// case of TestAttackReportedResetIsFresh (TestAttackPropertiesPolicies
// with seed 100): a WarmUp key reported, in decisions a Backoff denied,
// a ResetAfter 1 ns before it was cold.
func TestAttackWarmUpReportedReset(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	start := time.Date(2026, 1, 2, 3, 56, 9, 20808885, time.UTC)
	clk := coretest.NewClock(start)
	l := newLimiter(t, clk,
		core.Limit{Name: "warm", Algorithm: core.WarmUp{Rate: core.Per(10, 7*time.Second), WarmUp: 7 * time.Second}},
		core.Limit{Name: "backoff", Algorithm: core.Backoff{Free: 4, Window: 24237370, Max: time.Second}})
	var r core.Result
	for _, s := range []struct {
		at   time.Duration
		cost int64
	}{
		{700000000, 1}, {1151020756, 1}, {1708345744, 10}, {1285464132, 11}, {1708345745, 10}, {2170173656, 4},
		{2870173656, 1}, {2659436495, 7}, {3570173656, 11}, {4270173656, 1}, {4763370725, 1}, {5065528534, 1},
		{5765528534, 1}, {5317398497, 1}, {6465528534, 10}, {6465528535, 1}, {6465528536, 1}, {6046869716, 1},
		{6465528536, 6}, {6465528537, 1}, {7120005541, 11}, {7820005541, 10}, {7820005541, 1}, {7975559322, 10},
		{7975559322, 10}, {8675559322, 1}, {8675559323, 4}, {8675559323, 1}, {8675559323, 1}, {8675559324, 11},
		{10568667409, 1}, {11268667409, 10}, {11664137497, 1}, {11578865315, 1}, {12364137497, 1}, {11736306894, 10},
		{13064137497, 1}, {13064137497, 7}, {13764137497, 10}, {14464137497, 10}, {14364278862, 10},
	} {
		clk.Set(start.Add(s.at))
		var err error
		r, err = l.AllowN(ctx, "k", s.cost)
		require.NoError(t, err)
	}
	reset := r.Limits()[0].ResetAfter
	clk.Advance(reset)
	fresh, err := l.Peek(ctx, "never seen", 1)
	require.NoError(t, err)
	got, err := l.Peek(ctx, "k", 1)
	require.NoError(t, err)
	assert.Equal(t, fresh.Limits()[0], got.Limits()[0], "%v after its ResetAfter", reset)
}

// traceCount is n random configurations, a tenth of them under the race
// detector (which slows these single-goroutine traces tenfold and has no
// race to find in them) or -short.
func traceCount(n int) int {
	if race.Enabled || testing.Short() {
		return max(1, n/10)
	}
	return n
}

// traceStep is how far a random trace moves the clock: not at all, a
// nanosecond, a part of scale, scale, a part of far; now and then back by
// a part of scale (a stale caller).
func traceStep(rng *rand.Rand, scale, far int64) int64 {
	switch rng.IntN(6) {
	case 1:
		return 1
	case 2:
		return rng.Int64N(scale)
	case 3:
		return scale
	case 4:
		return rng.Int64N(far)
	case 5:
		return -rng.Int64N(scale)
	}
	return 0
}
