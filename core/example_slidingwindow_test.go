package core_test

import (
	"context"
	"fmt"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
)

func ExampleSlidingWindow() {
	// About 100 requests per minute, in three words per key.
	p := core.MustPolicy("api", core.Limit{Name: "minute", Algorithm: core.SlidingWindow{Quota: 100, Window: time.Minute}})
	clk := coretest.NewClock(time.Date(2026, 1, 2, 3, 4, 30, 0, time.UTC))
	l, err := core.NewLimiter(p, core.WithClock(clk))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	r, _ := l.AllowN(ctx, "carol", 80)
	fmt.Printf("03:04:30 80 allowed=%v remaining=%d\n", r.Allowed, r.Remaining)
	// 15 s into the next minute, the 80 of 03:04 still weigh 80·45/60 = 60.
	clk.Set(time.Date(2026, 1, 2, 3, 5, 15, 0, time.UTC))
	r, _ = l.AllowN(ctx, "carol", 50)
	fmt.Printf("03:05:15 50 allowed=%v remaining=%d retry after %v\n", r.Allowed, r.Remaining, r.RetryAfter)
	r, _ = l.AllowN(ctx, "carol", 40)
	fmt.Printf("03:05:15 40 allowed=%v remaining=%d\n", r.Allowed, r.Remaining)
	// Output:
	// 03:04:30 80 allowed=true remaining=20
	// 03:05:15 50 allowed=false remaining=40 retry after 7.5s
	// 03:05:15 40 allowed=true remaining=0
}
