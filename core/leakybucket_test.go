package core_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lbhLeakyGen draws a LeakyBucket with a random rate, capacity and no-delay.
func lbhLeakyGen(rng *rand.Rand) (core.Algorithm, int64, int64) {
	period := time.Duration(1 + rng.Int64N(int64(time.Minute)))
	limit := 1 + rng.Int64N(20)
	capacity := 1 + rng.Int64N(12)
	b := core.LeakyBucket{Rate: core.Per(limit, period), Capacity: capacity, NoDelay: rng.Int64N(capacity + 1)}
	if rng.IntN(4) == 0 {
		b.Capacity, b.NoDelay = 0, 0 // the default: Rate.Count
		capacity = limit
	}
	iv := int64(period)/limit + int64(min(1, int64(period)%limit))
	return b, capacity, iv
}

// A burst at one instant on an empty queue: the first NoDelay units pass at
// once, the later ones are spaced by I, and the unit beyond Capacity is
// denied until one has drained. 2/s is I = 500 ms.
func TestLeakyBucketBurstDelays(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	cases := []struct {
		name    string
		bucket  core.LeakyBucket
		delays  []time.Duration // of the admitted requests, in order
		retry   time.Duration   // of the one after them
		remains []int64
	}{
		{"pure shaping, NoDelay 0", core.LeakyBucket{Rate: core.PerSecond(2), Capacity: 4},
			[]time.Duration{0, 500 * ms, 1000 * ms, 1500 * ms}, 500 * ms, []int64{3, 2, 1, 0}},
		{"pure shaping, NoDelay 1 (nginx burst=3)", core.LeakyBucket{Rate: core.PerSecond(2), Capacity: 4, NoDelay: 1},
			[]time.Duration{0, 500 * ms, 1000 * ms, 1500 * ms}, 500 * ms, []int64{3, 2, 1, 0}},
		{"NoDelay 2 (nginx burst=3 delay=1)", core.LeakyBucket{Rate: core.PerSecond(2), Capacity: 4, NoDelay: 2},
			[]time.Duration{0, 0, 500 * ms, 1000 * ms}, 500 * ms, []int64{3, 2, 1, 0}},
		{"NoDelay 3", core.LeakyBucket{Rate: core.PerSecond(2), Capacity: 4, NoDelay: 3},
			[]time.Duration{0, 0, 0, 500 * ms}, 500 * ms, []int64{3, 2, 1, 0}},
		{"meter, NoDelay = Capacity (nginx burst=3 nodelay)", core.LeakyBucket{Rate: core.PerSecond(2), Capacity: 4, NoDelay: 4},
			[]time.Duration{0, 0, 0, 0}, 500 * ms, []int64{3, 2, 1, 0}},
		{"Capacity 0 is Rate.Limit", core.LeakyBucket{Rate: core.Per(3, 300*ms)},
			[]time.Duration{0, 100 * ms, 200 * ms}, 100 * ms, []int64{2, 1, 0}},
		{"Capacity 1: one at a time", core.LeakyBucket{Rate: core.PerMinute(1), Capacity: 1},
			[]time.Duration{0}, time.Minute, []int64{0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clk := coretest.NewClock(t0)
			l := lbhSingle(t, clk, tc.bucket)
			for i, want := range tc.delays {
				r := lbhTake(t, l, "k", 1)
				require.True(t, r.Allowed, "request %d", i)
				assert.Equal(t, want, r.Delay, "request %d", i)
				assert.Equal(t, tc.remains[i], r.Remaining, "request %d", i)
				assert.Equal(t, time.Duration(i+1)*tc.retry, r.ResetAfter, "request %d", i)
				assert.Equal(t, want, r.Limits()[0].Delay, "request %d", i)
			}
			r := lbhTake(t, l, "k", 1)
			assert.False(t, r.Allowed)
			assert.Zero(t, r.Delay)
			assert.Equal(t, tc.retry, r.RetryAfter)
			assert.Zero(t, r.Remaining)
		})
	}
}

// Requests arriving while the queue drains wait for their slot, measured
// from their own arrival; costs above 1 take several slots.
func TestLeakyBucketDelaysWhileDraining(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	clk := coretest.NewClock(t0)
	l := lbhSingle(t, clk, core.LeakyBucket{Rate: core.PerSecond(2), Capacity: 4, NoDelay: 1})
	steps := []struct {
		at        time.Duration
		cost      int64
		allowed   bool
		delay     time.Duration
		remaining int64
		reset     time.Duration
		retry     time.Duration
	}{
		{0, 1, true, 0, 3, 500 * ms, 0},                // TAT 500
		{0, 2, true, 500 * ms, 1, 1500 * ms, 0},        // slots 500..1500, TAT 1500
		{700 * ms, 1, true, 800 * ms, 1, 1300 * ms, 0}, // start 1500, TAT 2000
		{700 * ms, 2, false, 0, 1, 1300 * ms, 300 * ms},
		{1500 * ms, 2, true, 500 * ms, 1, 1500 * ms, 0}, // start 2000, TAT 3000
		{3000 * ms, 1, true, 0, 3, 500 * ms, 0},         // drained: no wait
		{3000 * ms, 5, false, 0, 3, 500 * ms, core.Never},
	}
	for i, s := range steps {
		clk.Set(t0.Add(s.at))
		r := lbhTake(t, l, "k", s.cost)
		assert.Equal(t, s.allowed, r.Allowed, "step %d", i)
		assert.Equal(t, s.delay, r.Delay, "step %d", i)
		assert.Equal(t, s.remaining, r.Remaining, "step %d", i)
		assert.Equal(t, s.reset, r.ResetAfter, "step %d", i)
		assert.Equal(t, s.retry, r.RetryAfter, "step %d", i)
	}
}

// The meter form (NoDelay = Capacity) never delays and decides exactly as
// GCRA{Rate, Burst: Capacity}, refunds included, on random traces.
func TestLeakyBucketMeterMatchesGCRA(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 11))
	for n := range 1500 {
		a, capacity, unit := lbhLeakyGen(rng)
		b := a.(core.LeakyBucket)
		b.Capacity, b.NoDelay = capacity, capacity
		clk := coretest.NewClock(t0)
		lb := lbhSingle(t, clk, b)
		g := lbhSingle(t, clk, core.GCRA{Rate: b.Rate, Burst: capacity})
		now := t0
		var taken [][2]core.Result
		for s := range 40 {
			now = now.Add(time.Duration(lbhGap(rng, unit, capacity)))
			clk.Set(now)
			var r1, r2 core.Result
			if len(taken) > 0 && rng.IntN(5) == 0 {
				i := rng.IntN(len(taken))
				r1, r2 = lbhRefund(t, lb, "k", taken[i][0]), lbhRefund(t, g, "k", taken[i][1])
				taken = append(taken[:i], taken[i+1:]...)
			} else {
				cost := lbhCost(rng, capacity)
				r1, r2 = lbhTake(t, lb, "k", cost), lbhTake(t, g, "k", cost)
				if r1.Allowed {
					taken = append(taken, [2]core.Result{r1, r2})
				}
			}
			if v1, v2 := lbhViewOf(r1), lbhViewOf(r2); v1 != v2 {
				t.Fatalf("trace %d step %d: %#v: LeakyBucket %+v, GCRA %+v", n, s, b, v1, v2)
			}
		}
	}
}

// A full queue denies everything until a slot drains, then admits one.
func TestLeakyBucketFullQueueRejects(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(t0)
	l := lbhSingle(t, clk, core.LeakyBucket{Rate: core.PerSecond(10), Capacity: 5})
	for i := range 5 {
		require.True(t, lbhTake(t, l, "k", 1).Allowed, "request %d", i)
	}
	for _, d := range []time.Duration{0, time.Millisecond, 99 * time.Millisecond} {
		clk.Set(t0.Add(d))
		r := lbhTake(t, l, "k", 1)
		assert.False(t, r.Allowed, "at %v", d)
		assert.Zero(t, r.Remaining, "at %v", d)
		assert.Equal(t, 100*time.Millisecond-d, r.RetryAfter, "at %v", d)
		assert.Equal(t, 500*time.Millisecond-d, r.ResetAfter, "at %v", d)
	}
	clk.Set(t0.Add(100 * time.Millisecond))
	r := lbhTake(t, l, "k", 1)
	assert.True(t, r.Allowed)
	assert.Equal(t, 400*time.Millisecond, r.Delay)
	assert.False(t, lbhTake(t, l, "k", 1).Allowed)
	// Other keys have their own queue.
	assert.True(t, lbhTake(t, l, "other", 5).Allowed)
}

func TestLeakyBucketRetryAfterExact(t *testing.T) {
	t.Parallel()
	lbhCheckRetryAfter(t, 1, 1200, 40, lbhLeakyGen)
}

// A refund gives back the slots taken: the next request waits as if the
// refunded one had never come. Time already drained is not given back.
func TestLeakyBucketRefund(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	clk := coretest.NewClock(t0)
	l := lbhSingle(t, clk, core.LeakyBucket{Rate: core.PerSecond(2), Capacity: 4, NoDelay: 1})
	require.True(t, lbhTake(t, l, "k", 1).Allowed)
	r := lbhTake(t, l, "k", 2)
	require.True(t, r.Allowed)
	require.Equal(t, 500*ms, r.Delay)
	before := lbhPeek(t, l, "k", 1)

	// Take and refund at the same instant: exactly as before.
	x := lbhTake(t, l, "k", 1)
	require.True(t, x.Allowed)
	after := lbhRefund(t, l, "k", x)
	assert.Equal(t, before, after)
	assert.False(t, after.Taken())

	// Refund the cost-2 request 200 ms later: TAT 1500 → 500.
	clk.Set(t0.Add(200 * ms))
	p := lbhRefund(t, l, "k", r)
	assert.Equal(t, int64(2), p.Remaining) // a peek of cost 1
	assert.Equal(t, 800*ms, p.ResetAfter)
	y := lbhTake(t, l, "k", 1)
	assert.Equal(t, 300*ms, y.Delay)

	// Refunding after the queue drained gives nothing back: TAT is not
	// moved below now.
	clk.Set(t0.Add(10 * time.Second))
	lbhRefund(t, l, "k", y)
	for i := range 4 {
		z := lbhTake(t, l, "k", 1)
		require.True(t, z.Allowed)
		assert.Equal(t, time.Duration(i)*500*ms, z.Delay)
	}
	assert.False(t, lbhTake(t, l, "k", 1).Allowed)

	// A decision is refunded once: a second refund of it is refused and
	// changes nothing.
	clk.Set(t0.Add(10*time.Second + 100*ms))
	big := lbhTake(t, l, "k2", 4)
	require.True(t, big.Allowed)
	lbhRefund(t, l, "k2", big)
	_, err := l.Refund(context.Background(), "k2", big)
	require.ErrorIs(t, err, core.ErrRefunded)
	assert.Equal(t, int64(3), lbhPeek(t, l, "k2", 1).Remaining)
	assert.True(t, lbhPeek(t, l, "k2", 4).Allowed)
	assert.False(t, lbhPeek(t, l, "k2", 5).Allowed)
}

func TestLeakyBucketValidate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		b    core.LeakyBucket
		ok   bool
	}{
		{"defaults", core.LeakyBucket{Rate: core.PerSecond(5)}, true},
		{"capacity and delay", core.LeakyBucket{Rate: core.PerSecond(5), Capacity: 10, NoDelay: 3}, true},
		{"meter", core.LeakyBucket{Rate: core.PerSecond(5), Capacity: 10, NoDelay: 10}, true},
		{"NoDelay = default capacity", core.LeakyBucket{Rate: core.PerSecond(5), NoDelay: 5}, true},
		{"zero value", core.LeakyBucket{}, false},
		{"zero limit", core.LeakyBucket{Rate: core.Per(0, time.Second)}, false},
		{"negative limit", core.LeakyBucket{Rate: core.Per(-1, time.Second)}, false},
		{"zero period", core.LeakyBucket{Rate: core.Per(1, 0)}, false},
		{"negative period", core.LeakyBucket{Rate: core.Per(1, -time.Second)}, false},
		{"period beyond 36 years", core.LeakyBucket{Rate: core.Per(1, time.Duration(math.MaxInt64))}, false},
		{"negative capacity", core.LeakyBucket{Rate: core.PerSecond(5), Capacity: -1}, false},
		{"negative NoDelay", core.LeakyBucket{Rate: core.PerSecond(5), NoDelay: -1}, false},
		{"NoDelay above capacity", core.LeakyBucket{Rate: core.PerSecond(5), Capacity: 3, NoDelay: 4}, false},
		{"NoDelay above default capacity", core.LeakyBucket{Rate: core.PerSecond(5), NoDelay: 6}, false},
		{"capacity × interval overflows", core.LeakyBucket{Rate: core.PerDay(1), Capacity: math.MaxInt64 / 1000}, false},
		{"capacity × interval beyond 36 years", core.LeakyBucket{Rate: core.PerDay(1), Capacity: 365 * 37}, false},
		{"capacity × interval just within 36 years", core.LeakyBucket{Rate: core.PerDay(1), Capacity: 365 * 35}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.b.Validate()
			_, perr := core.Single("p", tc.b)
			if tc.ok {
				assert.NoError(t, err)
				assert.NoError(t, perr)
				return
			}
			assert.ErrorIs(t, err, core.ErrInvalidConfig)
			assert.ErrorIs(t, perr, core.ErrInvalidConfig)
			assert.Contains(t, err.Error(), "LeakyBucket")
		})
	}
}

// The policy reports the capacity and the time it takes to drain.
func TestLeakyBucketQuota(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(t0)
	l := lbhSingle(t, clk, core.LeakyBucket{Rate: core.PerMinute(30), Capacity: 10, NoDelay: 2})
	r := lbhTake(t, l, "k", 1)
	assert.Equal(t, int64(10), r.Quota)
	assert.Equal(t, 20*time.Second, r.Limits()[0].Window)
}

func TestLeakyBucketIdleAtExact(t *testing.T) {
	t.Parallel()
	lbhCheckIdleAt(t, 3, 2000, lbhLeakyGen)
}

func TestLeakyBucketTakeRefundRestores(t *testing.T) {
	t.Parallel()
	lbhCheckTakeRefund(t, 5, 2000, lbhLeakyGen)
}

func TestLeakyBucketStaleNow(t *testing.T) {
	t.Parallel()
	lbhCheckStaleNow(t, 4, 2000, lbhLeakyGen)
	// A stale caller waits for the same slot as a current one: its delay
	// is measured from its own, older, now.
	ms := time.Millisecond
	clk := coretest.NewClock(t0.Add(time.Second))
	l := lbhSingle(t, clk, core.LeakyBucket{Rate: core.PerSecond(2), Capacity: 4})
	require.True(t, lbhTake(t, l, "k", 2).Allowed) // TAT 2000
	clk.Set(t0.Add(800 * ms))
	r := lbhTake(t, l, "k", 1)
	require.True(t, r.Allowed)
	assert.Equal(t, 1200*ms, r.Delay) // proceeds at 2000, its slot
}
