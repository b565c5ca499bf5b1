package coretest

import (
	"time"

	"github.com/floodgate-go/floodgate/core"
)

// Algorithms returns small, valid configurations of every algorithm, named:
// what the differential checks replay traces against. Every duration, and
// every emission interval (Period/Count), is a whole number of
// microseconds, so that stores keeping µs (the Redis store) decide exactly
// as the in-memory store does.
func Algorithms() []core.Limit {
	return []core.Limit{
		{Name: "gcra", Algorithm: core.GCRA{Rate: core.PerSecond(2), Burst: 4}},
		{Name: "leaky", Algorithm: core.LeakyBucket{Rate: core.PerSecond(4), Capacity: 5, NoDelay: 2}},
		{Name: "fixed", Algorithm: core.FixedWindow{Quota: 5, Window: 3 * time.Second}},
		{Name: "fixed-anchored", Algorithm: core.FixedWindow{Quota: 4, Window: 2500 * time.Millisecond, Anchored: true}},
		{Name: "sliding-window", Algorithm: core.SlidingWindow{Quota: 6, Window: 4 * time.Second}},
		{Name: "token", Algorithm: core.TokenBucket{Rate: core.PerSecond(3), Burst: 5}},
		{Name: "token-slow", Algorithm: core.TokenBucket{Rate: core.Per(2, 5*time.Second), Burst: 3}},
		{Name: "sliding-log", Algorithm: core.SlidingLog{Quota: 5, Window: 3 * time.Second}},
		{Name: "sliding-log-rejected", Algorithm: core.SlidingLog{Quota: 4, Window: 2 * time.Second, CountRejected: true}},
		{Name: "hybrid", Algorithm: core.Hybrid{Quota: 4, Window: 2 * time.Second}},
		{Name: "rolling", Algorithm: core.RollingWindow{Quota: 6, Window: 4 * time.Second, Period: time.Second, PeriodCap: 3}},
		{Name: "warmup", Algorithm: core.WarmUp{Rate: core.PerSecond(4), WarmUp: 2 * time.Second}},
		{Name: "backoff", Algorithm: core.Backoff{Free: 3, Window: 4 * time.Second, Base: 500 * time.Millisecond, Max: 3 * time.Second, Forgive: 10 * time.Second}},
	}
}
