package core_test

import (
	"context"
	"fmt"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
)

func ExampleTokenBucket() {
	ctx := context.Background()
	clk := coretest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	// A bucket of 4 tokens refilled at 2 per second.
	p, err := core.Single("api", core.TokenBucket{Rate: core.PerSecond(2), Burst: 4})
	if err != nil {
		panic(err)
	}
	l, err := core.NewLimiter(p, core.WithClock(clk))
	if err != nil {
		panic(err)
	}
	show := func(r core.Result) {
		fmt.Printf("allowed=%v remaining=%d reset=%v retry=%v\n", r.Allowed, r.Remaining, r.ResetAfter, r.RetryAfter)
	}
	for range 5 {
		r, _ := l.Allow(ctx, "alice")
		show(r)
	}
	clk.Advance(250 * time.Millisecond)
	// Half a token so far. The wait is x/time/rate's to the nanosecond:
	// at 1.5 s − 1 ns the bucket is short of 2 tokens by less than what
	// refills in 1 ns, which x/time/rate (and so TokenBucket) forgives.
	r, _ := l.AllowN(ctx, "alice", 2)
	show(r)
	clk.Advance(750 * time.Millisecond)
	r, _ = l.AllowN(ctx, "alice", 2)
	show(r)
	// Output:
	// allowed=true remaining=3 reset=500ms retry=0s
	// allowed=true remaining=2 reset=1s retry=0s
	// allowed=true remaining=1 reset=1.5s retry=0s
	// allowed=true remaining=0 reset=2s retry=0s
	// allowed=false remaining=0 reset=2s retry=500ms
	// allowed=false remaining=0 reset=1.75s retry=749.999999ms
	// allowed=true remaining=0 reset=2s retry=0s
}
