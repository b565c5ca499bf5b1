package redisstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var extremeMaxInstant = time.Unix(0, int64(1<<63-1)-2*(int64(1)<<60)).Truncate(time.Microsecond)

var extremeScales = []time.Duration{
	time.Microsecond, 13 * time.Microsecond, time.Millisecond, time.Second, time.Minute, time.Hour,
	24 * time.Hour, 365 * 24 * time.Hour, time.Duration(1) << 59, time.Duration(1) << 60,
}

var extremeCounts = []int64{1, 2, 3, 5, 17, 1000, 1 << 20, 1 << 31, 1 << 40, 1 << 52, 1 << 62}

// extremeAlgorithm returns a random µs-aligned configuration the Redis
// store accepts, extreme parameters included.
func extremeAlgorithm(rng *rand.Rand) core.Algorithm {
	dur := func() time.Duration {
		d := extremeScales[rng.IntN(len(extremeScales))]
		if rng.IntN(3) == 0 {
			d = time.Duration(1 + rng.Int64N(int64(d)))
		}
		return max(d.Truncate(time.Microsecond), time.Microsecond)
	}
	count := func() int64 {
		if rng.IntN(2) == 0 {
			return 1 + rng.Int64N(12)
		}
		c := extremeCounts[rng.IntN(len(extremeCounts))]
		if rng.IntN(3) == 0 && c > 1 {
			c = 1 + rng.Int64N(c)
		}
		return c
	}
	// rate has a whole-µs emission interval.
	rate := func() core.Rate {
		n := count()
		iv := dur()
		if n > int64(1<<60)/int64(iv) {
			n = int64(1<<60) / int64(iv)
		}
		return core.Per(n, time.Duration(n)*iv)
	}
	for {
		var a core.Algorithm
		switch rng.IntN(11) {
		case 0:
			a = core.GCRA{Rate: rate(), Burst: count() * int64(rng.IntN(2))}
		case 1:
			a = core.TokenBucket{Rate: rate(), Burst: count() * int64(rng.IntN(2))}
		case 2:
			c := count()
			a = core.LeakyBucket{Rate: rate(), Capacity: c, NoDelay: rng.Int64N(c + 1)}
		case 3:
			a = core.FixedWindow{Quota: count(), Window: dur(), Anchored: rng.IntN(2) == 0}
		case 4:
			a = core.SlidingLog{Quota: 1 + rng.Int64N(12), Window: dur(), CountRejected: rng.IntN(2) == 0}
		case 5:
			a = core.SlidingWindow{Quota: count(), Window: dur()}
		case 6:
			r := rate()
			a = core.Hybrid{Quota: r.Count, Window: r.Period}
		case 7:
			p := dur()
			q := count()
			var pc int64
			if rng.IntN(2) == 0 {
				pc = 1 + rng.Int64N(q)
			}
			a = core.RollingWindow{Quota: q, Window: p * time.Duration(1+rng.Int64N(6)), Period: p, PeriodCap: pc}
		case 8:
			a = core.WarmUp{Rate: rate(), WarmUp: dur()}
		default:
			a = core.Backoff{Free: 1 + rng.Int64N(6), Window: dur(), Base: dur(), Max: dur() * time.Duration(rng.IntN(2)),
				Forgive: dur() * time.Duration(rng.IntN(2))}
		}
		if a.Validate() != nil {
			continue
		}
		if redisstore.Supports(core.MustPolicy("x", core.Limit{Name: "x", Algorithm: a})) == nil {
			return a
		}
	}
}

func extremeScale(a core.Algorithm) time.Duration {
	var d time.Duration
	switch a := a.(type) {
	case core.GCRA:
		d = a.Rate.Interval()
	case core.TokenBucket:
		d = a.Rate.Interval()
	case core.LeakyBucket:
		d = a.Rate.Interval()
	case core.FixedWindow:
		d = a.Window
	case core.SlidingLog:
		d = a.Window
	case core.SlidingWindow:
		d = a.Window
	case core.Hybrid:
		d = a.Window
	case core.RollingWindow:
		d = a.Period
	case core.WarmUp:
		d = a.Rate.Interval()
	case core.Backoff:
		d = a.WithDefaults().Base
	}
	return max(d, time.Microsecond)
}

// TestAttackExtremeDifferential replays random traces of extreme
// configurations (rates from 1/36 years to a million per µs, windows from
// a µs to 36 years, costs at and beyond capacity) at instants near 1970,
// today and 2189-03-16, on the memory store and on Redis at the same
// injected time, and requires identical results.
func TestAttackExtremeDifferential(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	c := srv.Client(t)
	s := newStore(t, c, redisstore.Options{CallerClock: true, ExpirySlack: time.Hour, Pipelines: 2})
	extremeTraces(t, s, 21, 150)
}

func extremeTraces(t *testing.T, s core.Store, seed uint64, traces int) {
	rng := rand.New(rand.NewPCG(seed, 22))
	ctx := context.Background()
	for tr := 0; tr < traces; tr++ {
		n := 1
		if rng.IntN(3) == 0 {
			n = 2
		}
		var ls []core.Limit
		scale := time.Duration(1 << 62)
		var maxQ int64 = 1
		for i := 0; i < n; i++ {
			a := extremeAlgorithm(rng)
			ls = append(ls, core.Limit{Name: fmt.Sprint("l", i), Algorithm: a})
			scale = min(scale, extremeScale(a))
		}
		p := core.MustPolicy(fmt.Sprint("x", seed, "-", tr), ls...)
		if redisstore.Supports(p) != nil {
			continue
		}
		var start time.Time
		switch rng.IntN(3) {
		case 0:
			start = time.Unix(0, 0).Add(time.Duration(rng.Int64N(int64(scale))).Truncate(time.Microsecond))
		case 1:
			start = extremeMaxInstant.Add(-time.Duration(rng.Int64N(int64(min(scale*8, 1<<61)))).Truncate(time.Microsecond))
		default:
			start = coretest.T0
		}
		clk := coretest.NewClock(start)
		got, err := core.NewLimiter(p, core.WithStore(s), core.WithClock(clk))
		if err != nil {
			t.Fatal(err)
		}
		ref, err := core.NewLimiter(p, core.WithClock(clk))
		if err != nil {
			t.Fatal(err)
		}
		{
			r, _ := ref.Peek(ctx, "q", 1)
			for _, lr := range r.Limits() {
				maxQ = max(maxQ, lr.Quota)
			}
		}
		var lastG, lastR core.Result
		for step := 0; step < 25; step++ {
			var d time.Duration
			switch rng.IntN(5) {
			case 0:
			case 1:
				d = time.Microsecond
			case 2:
				d = time.Duration(rng.Int64N(int64(scale)))
			case 3:
				d = scale
			default:
				d = time.Duration(rng.Int64N(int64(min(scale, 1<<60)) * 3))
			}
			at := clk.Now().Add(d.Truncate(time.Microsecond))
			if at.After(extremeMaxInstant) {
				at = extremeMaxInstant
			}
			clk.Set(at)
			cost := int64(1)
			switch rng.IntN(4) {
			case 0:
				cost = 1 + rng.Int64N(min(maxQ, 1<<40))
			case 1:
				cost = maxQ
			}
			var g, r core.Result
			var eg, er error
			op := rng.IntN(10)
			switch {
			case op < 7:
				g, eg = got.AllowN(ctx, "k", cost)
				r, er = ref.AllowN(ctx, "k", cost)
				if r.Taken() {
					lastG, lastR = g, r
				}
			case op < 8:
				g, eg = got.Peek(ctx, "k", cost)
				r, er = ref.Peek(ctx, "k", cost)
			default:
				g, eg = got.Refund(ctx, "k", lastG)
				r, er = ref.Refund(ctx, "k", lastR)
			}
			if fmt.Sprint(eg) != fmt.Sprint(er) {
				t.Fatalf("%v from %v step %d op %d cost %d at %v: error %v, want %v", p.Limits(), start.UTC(), step, op, cost, at.UTC(), eg, er)
			}
			gl, rl := g.Limits(), r.Limits()
			if !sameUpToMicro(gl, rl) || g.Allowed != r.Allowed {
				t.Fatalf("%v from %v step %d op %d cost %d at %v (+%v):\n got  %+v\n want %+v", p.Limits(), start.UTC(), step, op, cost, at.UTC(), at.Sub(start), gl, rl)
			}
		}
	}
}

// sameUpToMicro reports whether got and want agree, but for waits Redis
// rounds up to the next whole µs (the memory store's exact instant may
// fall between two).
func sameUpToMicro(got, want []core.LimitResult) bool {
	if len(got) != len(want) {
		return false
	}
	up := func(g, w time.Duration) bool { return g == w || (w != core.Never && g > w && g-w < time.Microsecond) }
	for i := range got {
		g, w := got[i], want[i]
		if !up(g.RetryAfter, w.RetryAfter) || !up(g.ResetAfter, w.ResetAfter) {
			return false
		}
		g.RetryAfter, g.ResetAfter = w.RetryAfter, w.ResetAfter
		if g != w {
			return false
		}
	}
	return true
}

// TestAttackLongSpansExact decides, on both stores at the same µs-aligned
// instants, the cases where the scripts' arithmetic once left 2^53: a
// SlidingWindow of 20 years, whose Retry-After in ns was rounded (up to
// 104 ns early: a client retrying then was denied); a refund of a take
// holding more than 104 days, whose hold in ns was rounded (1 µs less
// given back); a GCRA of 2 per 36 years decided in 2189, whose
// max(TAT, now) + cost·I passed 2^53 µs (Retry-After 1 µs off either
// way).
func TestAttackLongSpansExact(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	s := newStore(t, srv.Client(t), redisstore.Options{CallerClock: true, ExpirySlack: time.Hour})
	ctx := context.Background()
	year := 365 * 24 * time.Hour
	type step struct {
		at     time.Duration // from the case's start
		cost   int64
		refund bool // refund the last take instead
		peek   bool // peek instead
	}
	for _, tc := range []struct {
		name  string
		limit core.Algorithm
		start time.Time
		steps []step
	}{
		{"sliding window 20 years", core.SlidingWindow{Quota: 5, Window: 20 * year}, time.Unix(0, 208346058031997000),
			[]step{{23013967221875 * time.Microsecond, 4, false, false}, {121076345810884 * time.Microsecond, 1, false, false},
				{279009382273632 * time.Microsecond, 4, false, false}}},
		{"refund of a 36-year hold", core.GCRA{Rate: core.Per(1, 1152921504606846*time.Microsecond)}, time.Unix(0, 12000),
			[]step{{0, 1, false, false}, {29 * time.Microsecond, 0, true, false}, {30 * time.Microsecond, 1, false, false}}},
		{"GCRA of 2 per 36 years in 2189", core.GCRA{Rate: core.Per(2, 1152921504606846*time.Microsecond)}, extremeMaxInstant,
			[]step{{0, 2, false, false}, {0, 2, false, true}}},
	} {
		p := core.MustPolicy(tc.name, core.Limit{Name: "l", Algorithm: tc.limit})
		clk := coretest.NewClock(tc.start)
		got, err := core.NewLimiter(p, core.WithStore(s), core.WithClock(clk))
		require.NoError(t, err)
		ref, err := core.NewLimiter(p, core.WithClock(clk))
		require.NoError(t, err)
		var lastG, lastR core.Result
		for i, st := range tc.steps {
			clk.Set(tc.start.Add(st.at))
			var g, r core.Result
			switch {
			case st.peek:
				g, err = got.Peek(ctx, "k", st.cost)
				require.NoError(t, err)
				r, err = ref.Peek(ctx, "k", st.cost)
				require.NoError(t, err)
			case st.refund:
				g, err = got.Refund(ctx, "k", lastG)
				require.NoError(t, err)
				r, err = ref.Refund(ctx, "k", lastR)
				require.NoError(t, err)
			default:
				g, err = got.AllowN(ctx, "k", st.cost)
				require.NoError(t, err)
				r, err = ref.AllowN(ctx, "k", st.cost)
				require.NoError(t, err)
				lastG, lastR = g, r
			}
			assert.Equal(t, r.Limits(), g.Limits(), "%s: step %d", tc.name, i)
		}
	}
}
