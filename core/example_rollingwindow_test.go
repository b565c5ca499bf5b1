package core_test

import (
	"context"
	"fmt"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
)

func ExampleRollingWindow() {
	// 10,000 per rolling 24 hours, recomputed every hour, and at most
	// 1,000 in any one hour.
	p := core.MustPolicy("export", core.Limit{Name: "daily", Algorithm: core.RollingWindow{
		Quota: 10000, Window: 24 * time.Hour, Period: time.Hour, PeriodCap: 1000,
	}})
	start := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	clk := coretest.NewClock(start)
	l, err := core.NewLimiter(p, core.WithClock(clk))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	// 1,000 at 00:30, the hourly cap.
	clk.Set(start.Add(30 * time.Minute))
	r, _ := l.AllowN(ctx, "dave", 1000)
	fmt.Printf("00:30 1000 allowed=%v remaining=%d\n", r.Allowed, r.Remaining)
	r, _ = l.AllowN(ctx, "dave", 1)
	fmt.Printf("00:30 1 allowed=%v retry after %v\n", r.Allowed, r.RetryAfter)
	// 1,000 in each of the next 9 hours: the 24-hour quota is used up.
	for h := 1; h < 10; h++ {
		clk.Set(start.Add(time.Duration(h) * time.Hour))
		l.AllowN(ctx, "dave", 1000)
	}
	clk.Set(start.Add(10 * time.Hour))
	r, _ = l.AllowN(ctx, "dave", 1)
	fmt.Printf("10:00 1 allowed=%v retry after %v\n", r.Allowed, r.RetryAfter)
	// At midnight the hour from 00:00 leaves the window.
	clk.Set(start.Add(24 * time.Hour))
	r, _ = l.AllowN(ctx, "dave", 1000)
	fmt.Printf("00:00 1000 allowed=%v remaining=%d\n", r.Allowed, r.Remaining)
	// Output:
	// 00:30 1000 allowed=true remaining=0
	// 00:30 1 allowed=false retry after 30m0s
	// 10:00 1 allowed=false retry after 14h0m0s
	// 00:00 1000 allowed=true remaining=0
}
