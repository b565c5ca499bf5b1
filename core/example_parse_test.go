package core_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
)

// A limit in the rate syntax: the rate, then the algorithm when it is not
// GCRA, then its parameters. String writes the canonical form back.
func ExampleParseAlgorithm() {
	for _, s := range []string{
		"100/min",
		"10/s burst 20",
		"1000/day fixed",
		"100/min sliding",
		"10000/day rolling every 1h cap 1000",
		"5/15m backoff base 1m",
	} {
		a, err := core.ParseAlgorithm(s)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-37s %-19T %s\n", s, a, a)
	}
	// Output:
	// 100/min                               core.GCRA           100/min
	// 10/s burst 20                         core.GCRA           10/s burst 20
	// 1000/day fixed                        core.FixedWindow    1000/day fixed-window
	// 100/min sliding                       core.SlidingWindow  100/min sliding-window
	// 10000/day rolling every 1h cap 1000   core.RollingWindow  10000/day rolling-window every 1h cap 1000
	// 5/15m backoff base 1m                 core.Backoff        5/15m backoff base 1m
}

// A policy of two named limits, decided together. String leaves out the
// name "minute", which ParsePolicy would give the limit anyway (after its
// period).
func ExampleParsePolicy() {
	policy, err := core.ParsePolicy("api", "burst: 2/s burst 3; minute: 5/min fixed-window")
	if err != nil {
		panic(err)
	}
	fmt.Println(policy)
	clk := coretest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	lim, err := core.NewLimiter(policy, core.WithClock(clk))
	if err != nil {
		panic(err)
	}
	for range 6 {
		res, _ := lim.Allow(context.Background(), "client-1")
		fmt.Println(res.Allowed, res.Name, res.Remaining)
		clk.Advance(500 * time.Millisecond)
	}
	// Output:
	// burst: 2/s burst 3; 5/min fixed-window
	// true burst 2
	// true burst 2
	// true burst 2
	// true minute 1
	// true minute 0
	// false minute 0
}

// Errors name the offending token and its column, and what was wanted.
func ExampleParseError() {
	_, err := core.ParseAlgorithm("10/s brust 20")
	fmt.Println(err)
	var pe *core.ParseError
	if errors.As(err, &pe) {
		fmt.Println(pe.Column, pe.Token, errors.Is(err, core.ErrInvalidConfig))
	}
	_, err = core.ParseAlgorithm("10/s leaky burst 5 no-delay 6")
	fmt.Println(err)
	// Output:
	// core: unknown word "brust" at column 6 (did you mean "burst"?): want an algorithm (gcra, token-bucket, leaky-bucket, fixed-window, sliding-window, sliding-log, hybrid, rolling-window, warm-up, backoff) or a parameter (burst, no-delay, anchored, count-rejected, every, cap, cold, base, max, forgive): invalid rate limit configuration
	// 6 brust true
	// core: "no-delay 6" at column 20: LeakyBucket: no-delay 6 must be in [0, capacity 5]: invalid rate limit configuration
}
