package core_test

import (
	"context"
	"fmt"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
)

// A policy of two limits: 2 per second in bursts of 3, and 5 per minute.
// A request passes only if both admit it, and a denial charges neither. The
// result names the binding limit: the one with the least remaining (the
// first on a tie), or for a denial the one with the longest wait.
func ExampleNewPolicy() {
	policy, err := core.NewPolicy("api",
		core.Limit{Name: "burst", Algorithm: core.GCRA{Rate: core.PerSecond(2), Burst: 3}},
		core.Limit{Name: "minute", Algorithm: core.FixedWindow{Quota: 5, Window: time.Minute}},
	)
	if err != nil {
		panic(err)
	}
	clk := coretest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	lim, err := core.NewLimiter(policy, core.WithClock(clk))
	if err != nil {
		panic(err)
	}
	for i := 0; i < 7; i++ {
		res, _ := lim.Allow(context.Background(), "client-1")
		fmt.Printf("%v %s remaining=%d retry=%v\n", res.Allowed, res.Name, res.Remaining, res.RetryAfter)
		clk.Advance(500 * time.Millisecond)
	}
	// Output:
	// true burst remaining=2 retry=0s
	// true burst remaining=2 retry=0s
	// true burst remaining=2 retry=0s
	// true minute remaining=1 retry=0s
	// true minute remaining=0 retry=0s
	// false minute remaining=0 retry=57.5s
	// false minute remaining=0 retry=57s
}

// Count only failures: take before the work, refund when it succeeded.
func ExampleLimiter_Refund() {
	lim, _ := core.NewLimiter(core.MustPolicy("login", core.Limit{Name: "failures", Algorithm: core.GCRA{Rate: core.PerHour(5)}}))
	ctx := context.Background()
	res, _ := lim.Allow(ctx, "alice")
	if res.Allowed {
		succeeded := true // the credential check
		if succeeded {
			after, _ := lim.Refund(ctx, "alice", res)
			fmt.Println("remaining after the refund:", after.Remaining+1)
		}
	}
	// Output:
	// remaining after the refund: 5
}

// A cost above what a limit can ever grant is told so: RetryAfter is Never.
func ExampleNever() {
	lim, _ := core.NewLimiter(core.MustPolicy("upload", core.Limit{Name: "mb", Algorithm: core.TokenBucket{Rate: core.PerSecond(10), Burst: 100}}))
	res, _ := lim.AllowN(context.Background(), "client", 500)
	fmt.Println(res.Allowed, res.RetryAfter == core.Never)
	// Output:
	// false true
}

// A key built in a buffer is decided without making a string: the same
// key, and so the same state, as the string of its bytes.
func ExampleLimiter_TakeBytes() {
	lim, _ := core.NewLimiter(core.MustPolicy("api", core.Limit{Name: "api", Algorithm: core.GCRA{Rate: core.PerMinute(3)}}))
	ctx := context.Background()
	var buf [32]byte
	key := append(buf[:0], "tenant-"...)
	key = append(key, "42"...)
	var res core.Result
	_ = lim.TakeBytes(ctx, key, 1, &res)
	fmt.Println("allowed:", res.Allowed, "remaining:", res.Remaining)
	res, _ = lim.Allow(ctx, "tenant-42")
	fmt.Println("allowed:", res.Allowed, "remaining:", res.Remaining)
	// Output:
	// allowed: true remaining: 2
	// allowed: true remaining: 1
}
