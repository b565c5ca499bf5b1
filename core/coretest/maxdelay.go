package coretest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
)

// MaxDelayPolicies are the policies [MaxDelayHonest] is meant to be run
// on: a shaping limit alone (pure shaping, and with a no-delay part), two
// of them, and one beside limits that do not delay (windows, buckets, a
// log that counts denied attempts). Every rate's interval
// is a whole number of microseconds (the Redis store's resolution).
func MaxDelayPolicies() []*core.Policy {
	lb := func(n, c, nd int64) core.Algorithm {
		return core.LeakyBucket{Rate: core.Per(n, time.Second), Capacity: c, NoDelay: nd}
	}
	return []*core.Policy{
		core.MustPolicy("lb", core.Limit{Name: "lb", Algorithm: lb(1, 4, 0)}),
		core.MustPolicy("lbnd", core.Limit{Name: "lbnd", Algorithm: lb(2, 6, 3)}),
		core.MustPolicy("two",
			core.Limit{Name: "slow", Algorithm: lb(1, 5, 0)},
			core.Limit{Name: "fast", Algorithm: lb(4, 8, 2)}),
		core.MustPolicy("mixed",
			core.Limit{Name: "lb", Algorithm: lb(2, 5, 0)},
			core.Limit{Name: "fw", Algorithm: core.FixedWindow{Quota: 6, Window: 3 * time.Second}},
			core.Limit{Name: "gcra", Algorithm: core.GCRA{Rate: core.PerSecond(4), Burst: 4}}),
		core.MustPolicy("mixed2",
			core.Limit{Name: "lb", Algorithm: lb(2, 5, 2)},
			core.Limit{Name: "tb", Algorithm: core.TokenBucket{Rate: core.PerSecond(3), Burst: 5}},
			core.Limit{Name: "log", Algorithm: core.SlidingLog{Quota: 6, Window: 3 * time.Second, CountRejected: true}}),
	}
}

// MaxDelayHonest takes a random schedule (of seed) of steps costs 1 to 3,
// at steps of 0 to 1.2 s, under core.WithMaxDelay(1.5 s) on a limiter of p
// on st, and checks each Result against a Peek, the store's own decision
// (a take under the bound admits what a Peek admits with a Delay within
// it): for a denial, a request of its cost at exactly RetryAfter is
// admitted within the bound, and res before it is not (the store's
// resolution: 1 ns in memory, 1 µs in Redis); for an admission,
// a request of cost Remaining at the same instant is. Each check moves
// the clock ahead and back: a Peek changes no state. It reports how many
// denials and admissions it checked.
func MaxDelayHonest(t testing.TB, p *core.Policy, st core.Store, seed uint64, steps int, res time.Duration) (denials, admissions int) {
	t.Helper()
	const d = 1500 * time.Millisecond
	rng := rand.New(rand.NewPCG(seed, 7))
	clk := NewClock(T0)
	l, err := core.NewLimiter(p, core.WithStore(st), core.WithClock(clk))
	requireNoError(t, err)
	ctx := core.WithMaxDelay(context.Background(), d)
	key := fmt.Sprint("maxdelay", seed)
	within := func(at time.Time, cost int64) bool {
		now := clk.Now()
		clk.Set(at)
		defer clk.Set(now)
		r, err := l.Peek(context.Background(), key, cost)
		requireNoError(t, err)
		return r.Allowed && r.Delay <= d
	}
	for step := range steps {
		clk.Advance(time.Duration(rng.Int64N(int64(1200 * time.Millisecond))))
		cost := 1 + rng.Int64N(3)
		r, err := l.AllowN(ctx, key, cost)
		requireNoError(t, err)
		now := clk.Now()
		what := fmt.Sprintf("%s seed %d step %d cost %d: %+v", p.Name(), seed, step, cost, r)
		requireTrue(t, r.Delay <= d, "delay within the bound: %s", what)
		if !r.Allowed {
			denials++
			requireFalse(t, r.Taken(), "a denial holds nothing: %s", what)
			if r.RetryAfter == core.Never {
				continue
			}
			requireTrue(t, r.RetryAfter > 0, "a denial waits: %s", what)
			requireTrue(t, within(now.Add(r.RetryAfter), cost), "admitted at RetryAfter: %s", what)
			requireFalse(t, within(now.Add(r.RetryAfter-res), cost), "refused %v before RetryAfter: %s", res, what)
			continue
		}
		admissions++
		if r.Remaining > 0 {
			requireTrue(t, within(now, r.Remaining), "a follow-up of Remaining admitted: %s", what)
		}
	}
	return denials, admissions
}
