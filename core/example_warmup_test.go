package core_test

import (
	"context"
	"fmt"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
)

func ExampleWarmUp() {
	ctx := context.Background()
	clk := coretest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	// 1 per second once warm; a cold key starts 3 times slower and reaches
	// the stable rate after 4 s of continuous use.
	p, err := core.Single("db", core.WarmUp{Rate: core.PerSecond(1), WarmUp: 4 * time.Second, ColdFactor: 3})
	if err != nil {
		panic(err)
	}
	l, err := core.NewLimiter(p, core.WithClock(clk))
	if err != nil {
		panic(err)
	}
	start := clk.Now()
	for range 6 {
		r, _ := l.Allow(ctx, "shard-1")
		if !r.Allowed {
			fmt.Printf("denied, retry after %v\n", r.RetryAfter)
			clk.Advance(r.RetryAfter)
			r, _ = l.Allow(ctx, "shard-1")
		}
		fmt.Printf("admitted at %v\n", clk.Now().Sub(start))
	}
	// Output:
	// admitted at 0s
	// denied, retry after 2.5s
	// admitted at 2.5s
	// denied, retry after 1.5s
	// admitted at 4s
	// denied, retry after 1s
	// admitted at 5s
	// denied, retry after 1s
	// admitted at 6s
	// denied, retry after 1s
	// admitted at 7s
}
