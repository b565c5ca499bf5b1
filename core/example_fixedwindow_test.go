package core_test

import (
	"context"
	"fmt"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
)

func ExampleFixedWindow() {
	// 3 requests per minute, in windows aligned to the clock's minutes.
	p := core.MustPolicy("api", core.Limit{Name: "minute", Algorithm: core.FixedWindow{Quota: 3, Window: time.Minute}})
	clk := coretest.NewClock(time.Date(2026, 1, 2, 3, 4, 50, 0, time.UTC))
	l, err := core.NewLimiter(p, core.WithClock(clk))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	for i := range 4 {
		r, _ := l.Allow(ctx, "alice")
		fmt.Printf("%d: allowed=%v remaining=%d retry after %v\n", i, r.Allowed, r.Remaining, r.RetryAfter)
	}
	// The window ends at 03:05:00: a new one starts with a full quota.
	clk.Advance(10 * time.Second)
	r, _ := l.Allow(ctx, "alice")
	fmt.Printf("at %s: allowed=%v remaining=%d\n", clk.Now().Format("15:04:05"), r.Allowed, r.Remaining)
	// Output:
	// 0: allowed=true remaining=2 retry after 0s
	// 1: allowed=true remaining=1 retry after 0s
	// 2: allowed=true remaining=0 retry after 0s
	// 3: allowed=false remaining=0 retry after 10s
	// at 03:05:00: allowed=true remaining=2
}
