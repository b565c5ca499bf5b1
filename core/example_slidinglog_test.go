package core_test

import (
	"context"
	"fmt"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
)

func ExampleSlidingLog() {
	// At most 2 login attempts in any trailing 10 minutes, counting the
	// denied ones: a client that keeps trying stays locked out.
	p := core.MustPolicy("login", core.Limit{Name: "attempts", Algorithm: core.SlidingLog{
		Quota: 2, Window: 10 * time.Minute, CountRejected: true,
	}})
	clk := coretest.NewClock(time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC))
	l, err := core.NewLimiter(p, core.WithClock(clk))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	for _, after := range []time.Duration{0, time.Minute, 2 * time.Minute, 9 * time.Minute, 19 * time.Minute} {
		clk.Set(time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC).Add(after))
		r, _ := l.Allow(ctx, "bob")
		fmt.Printf("03:%02.0f allowed=%v retry after %v\n", after.Minutes(), r.Allowed, r.RetryAfter)
	}
	// The attempt of 03:02 is logged: the log holds 03:01 and 03:02, and
	// one must expire (03:11). The client retries early, at 03:09: the log
	// holds 03:02 and 03:09, and 03:02 must expire (03:12). It waits 10
	// minutes and passes.

	// Output:
	// 03:00 allowed=true retry after 0s
	// 03:01 allowed=true retry after 0s
	// 03:02 allowed=false retry after 9m0s
	// 03:09 allowed=false retry after 3m0s
	// 03:19 allowed=true retry after 0s
}
