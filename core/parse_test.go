package core_test

import (
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	oneDay  = 24 * time.Hour
	oneWeek = 7 * oneDay
)

// Every algorithm, every parameter, every alias and every unit: the value
// parsed (defaults filled in) and the canonical form String writes.
func TestParseAlgorithm(t *testing.T) {
	t.Parallel()
	r := core.Per
	for _, tc := range []struct {
		in    string
		want  core.Algorithm
		canon string // "" means in
	}{
		// The examples.
		{"100/min", core.GCRA{Rate: core.PerMinute(100), Burst: 100}, ""},
		{"10/s burst 20", core.GCRA{Rate: core.PerSecond(10), Burst: 20}, ""},
		{"5/15m", core.GCRA{Rate: r(5, 15*time.Minute), Burst: 5}, ""},
		{"1000/day", core.GCRA{Rate: core.PerDay(1000), Burst: 1000}, ""},
		{"100/min sliding", core.SlidingWindow{Quota: 100, Window: time.Minute}, "100/min sliding-window"},

		// GCRA.
		{"100/min gcra", core.GCRA{Rate: core.PerMinute(100), Burst: 100}, "100/min"},
		{"100/min burst 100", core.GCRA{Rate: core.PerMinute(100), Burst: 100}, "100/min"},
		{"10/s burst 1", core.GCRA{Rate: core.PerSecond(10), Burst: 1}, ""},
		{"10/s gcra burst 3", core.GCRA{Rate: core.PerSecond(10), Burst: 3}, "10/s burst 3"},
		{"10/s burst 3 gcra", core.GCRA{Rate: core.PerSecond(10), Burst: 3}, "10/s burst 3"},

		// TokenBucket.
		{"10/s token-bucket", core.TokenBucket{Rate: core.PerSecond(10), Burst: 10}, ""},
		{"10/s token-bucket burst 50", core.TokenBucket{Rate: core.PerSecond(10), Burst: 50}, ""},
		{"10/s token burst 50", core.TokenBucket{Rate: core.PerSecond(10), Burst: 50}, "10/s token-bucket burst 50"},

		// LeakyBucket.
		{"10/s leaky-bucket", core.LeakyBucket{Rate: core.PerSecond(10), Capacity: 10}, ""},
		{"10/s leaky-bucket burst 20 no-delay 5", core.LeakyBucket{Rate: core.PerSecond(10), Capacity: 20, NoDelay: 5}, ""},
		{"10/s leaky no-delay 20 burst 20", core.LeakyBucket{Rate: core.PerSecond(10), Capacity: 20, NoDelay: 20}, "10/s leaky-bucket burst 20 no-delay 20"},
		{"10/s leaky no-delay 0", core.LeakyBucket{Rate: core.PerSecond(10), Capacity: 10}, "10/s leaky-bucket"},
		{"10/s leaky no-delay 1", core.LeakyBucket{Rate: core.PerSecond(10), Capacity: 10, NoDelay: 1}, "10/s leaky-bucket no-delay 1"},

		// FixedWindow.
		{"1000/day fixed-window", core.FixedWindow{Quota: 1000, Window: oneDay}, ""},
		{"1000/day fixed anchored", core.FixedWindow{Quota: 1000, Window: oneDay, Anchored: true}, "1000/day fixed-window anchored"},
		{"1000/day anchored fixed-window", core.FixedWindow{Quota: 1000, Window: oneDay, Anchored: true}, "1000/day fixed-window anchored"},

		// SlidingWindow, SlidingLog, Hybrid.
		{"60/min sliding-window", core.SlidingWindow{Quota: 60, Window: time.Minute}, ""},
		{"5/min sliding-log", core.SlidingLog{Quota: 5, Window: time.Minute}, ""},
		{"5/min sliding-log count-rejected", core.SlidingLog{Quota: 5, Window: time.Minute, CountRejected: true}, ""},
		{"65536/min sliding-log", core.SlidingLog{Quota: core.MaxSlidingLogQuota, Window: time.Minute}, ""},
		{"100/min hybrid", core.Hybrid{Quota: 100, Window: time.Minute}, ""},

		// RollingWindow.
		{"10000/day rolling-window every 1h", core.RollingWindow{Quota: 10000, Window: oneDay, Period: time.Hour, PeriodCap: 10000}, ""},
		{"10000/day rolling every 1h cap 1000", core.RollingWindow{Quota: 10000, Window: oneDay, Period: time.Hour, PeriodCap: 1000}, "10000/day rolling-window every 1h cap 1000"},
		{"10000/day rolling every hour cap 10000", core.RollingWindow{Quota: 10000, Window: oneDay, Period: time.Hour, PeriodCap: 10000}, "10000/day rolling-window every 1h"},
		{"10/min rolling every min", core.RollingWindow{Quota: 10, Window: time.Minute, Period: time.Minute, PeriodCap: 10}, "10/min rolling-window every 1m"},

		// WarmUp.
		{"10/s warm-up 30s", core.WarmUp{Rate: core.PerSecond(10), WarmUp: 30 * time.Second, ColdFactor: 3}, ""},
		{"10/s warmup 1m cold 4", core.WarmUp{Rate: core.PerSecond(10), WarmUp: time.Minute, ColdFactor: 4}, "10/s warm-up 1m cold 4"},
		{"10/s cold 2.5 warm-up 1m", core.WarmUp{Rate: core.PerSecond(10), WarmUp: time.Minute, ColdFactor: 2.5}, "10/s warm-up 1m cold 2.5"},
		{"10/s warm-up 1m cold 3", core.WarmUp{Rate: core.PerSecond(10), WarmUp: time.Minute, ColdFactor: 3}, "10/s warm-up 1m"},
		{"10/s warm-up 1m cold 1.000", core.WarmUp{Rate: core.PerSecond(10), WarmUp: time.Minute, ColdFactor: 1}, "10/s warm-up 1m cold 1"},

		// Backoff.
		{"5/hour backoff", core.Backoff{Free: 5, Window: time.Hour, Base: time.Second, Max: 15 * time.Minute, Forgive: oneDay}, ""},
		{"5/15m backoff base 1m max 1h", core.Backoff{Free: 5, Window: 15 * time.Minute, Base: time.Minute, Max: time.Hour, Forgive: oneDay}, ""},
		{"5/15m backoff forgive 2d", core.Backoff{Free: 5, Window: 15 * time.Minute, Base: time.Second, Max: 15 * time.Minute, Forgive: 2 * oneDay}, ""},
		{"5/15m backoff base 20m", core.Backoff{Free: 5, Window: 15 * time.Minute, Base: 20 * time.Minute, Max: 20 * time.Minute, Forgive: oneDay}, ""},
		{"5/15m backoff base 20m max 20m forgive 24h", core.Backoff{Free: 5, Window: 15 * time.Minute, Base: 20 * time.Minute, Max: 20 * time.Minute, Forgive: oneDay}, "5/15m backoff base 20m"},
		{"5/15m backoff max 2d", core.Backoff{Free: 5, Window: 15 * time.Minute, Base: time.Second, Max: 2 * oneDay, Forgive: 2 * oneDay}, "5/15m backoff max 2d"},
		{"5/15m backoff max 2d forgive 3d", core.Backoff{Free: 5, Window: 15 * time.Minute, Base: time.Second, Max: 2 * oneDay, Forgive: 3 * oneDay}, ""},
		{"1/s backoff base 1s max 1s forgive 1s", core.Backoff{Free: 1, Window: time.Second, Base: time.Second, Max: time.Second, Forgive: time.Second}, "1/s backoff max 1s forgive 1s"},

		// Units and periods.
		{"1/ns", core.GCRA{Rate: r(1, 1), Burst: 1}, ""},
		{"1/us", core.GCRA{Rate: r(1, time.Microsecond), Burst: 1}, ""},
		{"1/µs", core.GCRA{Rate: r(1, time.Microsecond), Burst: 1}, "1/us"},
		{"1/μs", core.GCRA{Rate: r(1, time.Microsecond), Burst: 1}, "1/us"},
		{"1/ms", core.GCRA{Rate: r(1, time.Millisecond), Burst: 1}, ""},
		{"1/sec", core.GCRA{Rate: core.PerSecond(1), Burst: 1}, "1/s"},
		{"1/second", core.GCRA{Rate: core.PerSecond(1), Burst: 1}, "1/s"},
		{"1/2seconds", core.GCRA{Rate: r(1, 2*time.Second), Burst: 1}, "1/2s"},
		{"1/m", core.GCRA{Rate: core.PerMinute(1), Burst: 1}, "1/min"},
		{"1/minute", core.GCRA{Rate: core.PerMinute(1), Burst: 1}, "1/min"},
		{"1/5minutes", core.GCRA{Rate: r(1, 5*time.Minute), Burst: 1}, "1/5m"},
		{"1/h", core.GCRA{Rate: core.PerHour(1), Burst: 1}, "1/hour"},
		{"1/hr", core.GCRA{Rate: core.PerHour(1), Burst: 1}, "1/hour"},
		{"1/2hours", core.GCRA{Rate: r(1, 2*time.Hour), Burst: 1}, "1/2h"},
		{"1/d", core.GCRA{Rate: core.PerDay(1), Burst: 1}, "1/day"},
		{"1/3days", core.GCRA{Rate: r(1, 3*oneDay), Burst: 1}, "1/3d"},
		{"1/w", core.GCRA{Rate: r(1, oneWeek), Burst: 1}, "1/7d"},
		{"1/week", core.GCRA{Rate: r(1, oneWeek), Burst: 1}, "1/7d"},
		{"1/2weeks", core.GCRA{Rate: r(1, 2*oneWeek), Burst: 1}, "1/14d"},
		{"7/1h30m", core.GCRA{Rate: r(7, 90*time.Minute), Burst: 7}, "7/90m"},
		{"7/1d12h", core.GCRA{Rate: r(7, 36*time.Hour), Burst: 7}, "7/36h"},
		{"7/1h0m0s", core.GCRA{Rate: core.PerHour(7), Burst: 7}, "7/hour"},
		{"7/1.5h", core.GCRA{Rate: r(7, 90*time.Minute), Burst: 7}, "7/90m"},
		{"7/0.5s", core.GCRA{Rate: r(7, 500*time.Millisecond), Burst: 7}, "7/500ms"},
		{"7/1.250s", core.GCRA{Rate: r(7, 1250*time.Millisecond), Burst: 7}, "7/1250ms"},
		{"7/0.000000001s", core.GCRA{Rate: r(7, 1), Burst: 7}, "7/ns"},
		{"7/1.000000000000000000000s", core.GCRA{Rate: core.PerSecond(7), Burst: 7}, "7/s"},
		{"7/60s", core.GCRA{Rate: core.PerMinute(7), Burst: 7}, "7/min"},
		{"7/1500ms", core.GCRA{Rate: r(7, 1500*time.Millisecond), Burst: 7}, ""},
		{"7/1234567891ns", core.GCRA{Rate: r(7, 1234567891), Burst: 7}, ""},
		{"0100/min", core.GCRA{Rate: core.PerMinute(100), Burst: 100}, "100/min"},
		{"1152921504606846976/day", core.GCRA{Rate: core.PerDay(1 << 60), Burst: 1 << 60}, ""},
		{"9223372036854775807/day fixed-window", core.FixedWindow{Quota: 1<<63 - 1, Window: oneDay}, ""},
		{"1/1152921504606846976ns", core.GCRA{Rate: r(1, 1<<60), Burst: 1}, ""},

		// White space.
		{"  10/s \t burst\n20  ", core.GCRA{Rate: core.PerSecond(10), Burst: 20}, "10/s burst 20"},
	} {
		a, err := core.ParseAlgorithm(tc.in)
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, a, tc.in)
		canon := tc.canon
		if canon == "" {
			canon = tc.in
		}
		assert.Equal(t, canon, a.String(), tc.in)
		b, err := core.ParseAlgorithm(a.String())
		require.NoError(t, err, tc.in)
		assert.Equal(t, a, b, tc.in)
	}
}

// The String of an algorithm built in Go, defaults left zero.
func TestAlgorithmString(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		a    core.Algorithm
		want string
	}{
		{core.GCRA{Rate: core.PerMinute(100)}, "100/min"},
		{core.GCRA{Rate: core.PerSecond(10), Burst: 20}, "10/s burst 20"},
		{core.TokenBucket{Rate: core.PerSecond(10)}, "10/s token-bucket"},
		{core.LeakyBucket{Rate: core.PerSecond(10), NoDelay: 3}, "10/s leaky-bucket no-delay 3"},
		{core.FixedWindow{Quota: 5, Window: time.Minute}, "5/min fixed-window"},
		{core.SlidingLog{Quota: 5, Window: time.Minute, CountRejected: true}, "5/min sliding-log count-rejected"},
		{core.SlidingWindow{Quota: 5, Window: 15 * time.Minute}, "5/15m sliding-window"},
		{core.Hybrid{Quota: 5, Window: time.Hour}, "5/hour hybrid"},
		{core.RollingWindow{Quota: 10000, Window: oneDay, Period: time.Hour}, "10000/day rolling-window every 1h"},
		{core.WarmUp{Rate: core.PerSecond(10), WarmUp: 90 * time.Second}, "10/s warm-up 90s"},
		{core.Backoff{Free: 5}, "5/hour backoff"},
		{core.Backoff{Free: 5, Base: time.Hour}, "5/hour backoff base 1h"},
		{&core.GCRA{Rate: core.PerMinute(100)}, "100/min"},
		// Invalid values format without panicking (and do not parse).
		{core.GCRA{}, "0/0s"},
		{core.GCRA{Rate: core.Per(-1, -time.Second), Burst: -2}, "-1/-1s burst -2"},
		{core.WarmUp{Rate: core.PerSecond(1), ColdFactor: -1}, "1/s warm-up 0s cold -1"},
		{core.Backoff{Free: 1, Base: -1}, "1/hour backoff base -1ns"},
	} {
		assert.Equal(t, tc.want, tc.a.String())
	}
	assert.Equal(t, "100/min", core.PerMinute(100).String())
	assert.Equal(t, "1/333333334ns", mustOK(core.RateOf(3)).String())
}

func mustOK[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// Policies: names given, derived from the period, quoted; String leaves
// out the names ParsePolicy would derive.
func TestParsePolicy(t *testing.T) {
	t.Parallel()
	gcra := func(n int64, d time.Duration) core.Algorithm { return core.GCRA{Rate: core.Per(n, d), Burst: n} }
	for _, tc := range []struct {
		in    string
		want  []core.Limit
		canon string
	}{
		{"100/min", []core.Limit{{Name: "api", Algorithm: gcra(100, time.Minute)}}, ""},
		{"api: 100/min", []core.Limit{{Name: "api", Algorithm: gcra(100, time.Minute)}}, "100/min"},
		{"minute: 100/min", []core.Limit{{Name: "minute", Algorithm: gcra(100, time.Minute)}}, ""},
		{"10/s; 1000/day", []core.Limit{{Name: "second", Algorithm: gcra(10, time.Second)}, {Name: "day", Algorithm: gcra(1000, oneDay)}}, ""},
		{"10/min; 100/hour; 5/15m; 1/ms", []core.Limit{
			{Name: "minute", Algorithm: gcra(10, time.Minute)}, {Name: "hour", Algorithm: gcra(100, time.Hour)},
			{Name: "15m", Algorithm: gcra(5, 15*time.Minute)}, {Name: "ms", Algorithm: gcra(1, time.Millisecond)},
		}, ""},
		{"burst: 10/s burst 20; daily: 10000/day fixed-window", []core.Limit{
			{Name: "burst", Algorithm: core.GCRA{Rate: core.PerSecond(10), Burst: 20}},
			{Name: "daily", Algorithm: core.FixedWindow{Quota: 10000, Window: oneDay}},
		}, ""},
		{" a : 10/s ;b:20/s;  c.d_e-9:30/s ", []core.Limit{
			{Name: "a", Algorithm: gcra(10, time.Second)}, {Name: "b", Algorithm: gcra(20, time.Second)},
			{Name: "c.d_e-9", Algorithm: gcra(30, time.Second)},
		}, "a: 10/s; b: 20/s; c.d_e-9: 30/s"},
		{`"per user": 5/min; "a;b:c\"": 1/s`, []core.Limit{
			{Name: "per user", Algorithm: gcra(5, time.Minute)}, {Name: `a;b:c"`, Algorithm: gcra(1, time.Second)},
		}, ""},
		{`"": 5/min`, []core.Limit{{Name: "", Algorithm: gcra(5, time.Minute)}}, ""},
		{`"api": 5/min`, []core.Limit{{Name: "api", Algorithm: gcra(5, time.Minute)}}, "5/min"},
		{`"\u00ff\u00e9": 5/min`, []core.Limit{{Name: "ÿé", Algorithm: gcra(5, time.Minute)}}, `"ÿé": 5/min`},
		{"day: 10/s; second: 1000/day", []core.Limit{{Name: "day", Algorithm: gcra(10, time.Second)}, {Name: "second", Algorithm: gcra(1000, oneDay)}}, ""},
	} {
		p, err := core.ParsePolicy("api", tc.in)
		require.NoError(t, err, tc.in)
		assert.Equal(t, "api", p.Name())
		assert.Equal(t, tc.want, p.Limits(), tc.in)
		canon := tc.canon
		if canon == "" {
			canon = tc.in
		}
		assert.Equal(t, canon, p.String(), tc.in)
		q, err := core.ParsePolicy("api", p.String())
		require.NoError(t, err, tc.in)
		assert.Equal(t, p.Limits(), q.Limits(), tc.in)
	}

	// A policy's only unnamed limit takes the policy's name, even "".
	p, err := core.ParsePolicy("", "5/min")
	require.NoError(t, err)
	assert.Equal(t, []core.Limit{{Name: "", Algorithm: gcra(5, time.Minute)}}, p.Limits())
	assert.Equal(t, "5/min", p.String())

	// Policies built in Go: names that differ from the derived ones are
	// written, quoted when they must be.
	p = core.MustPolicy("api",
		core.Limit{Name: "a b", Algorithm: core.GCRA{Rate: core.PerSecond(1)}},
		core.Limit{Name: "day", Algorithm: core.FixedWindow{Quota: 9, Window: oneDay}})
	assert.Equal(t, `"a b": 1/s; 9/day fixed-window`, p.String())
	p = core.MustPolicy("api", core.Limit{Name: "x", Algorithm: core.Backoff{Free: 3}})
	assert.Equal(t, "x: 3/hour backoff", p.String())
	var nilPolicy *core.Policy
	assert.Equal(t, "<nil>", nilPolicy.String())
}
