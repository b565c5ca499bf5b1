package core_test

import (
	"context"
	"fmt"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
)

// 3 requests a minute at any pace; a client that spends them all is then
// held to one every 20 s until it slows down.
func ExampleHybrid() {
	p := core.MustPolicy("api", core.Limit{
		Name:      "quota",
		Algorithm: core.Hybrid{Quota: 3, Window: time.Minute},
	})
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clk := coretest.NewClock(start)
	l, _ := core.NewLimiter(p, core.WithClock(clk))
	ctx := context.Background()
	try := func() {
		r, _ := l.Allow(ctx, "client")
		at := clk.Now().Sub(start)
		if r.Allowed {
			fmt.Printf("%v: allowed, %d left\n", at, r.Remaining)
		} else {
			fmt.Printf("%v: denied, retry after %v\n", at, r.RetryAfter)
		}
	}
	for range 4 {
		try() // a burst: the quota, then smooth mode
	}
	clk.Set(start.Add(60 * time.Second))
	try() // the window's end: one unit back
	try()
	clk.Set(start.Add(3 * time.Minute))
	try() // refilled: bursty again
	// Output:
	// 0s: allowed, 2 left
	// 0s: allowed, 1 left
	// 0s: allowed, 0 left
	// 0s: denied, retry after 1m0s
	// 1m0s: allowed, 0 left
	// 1m0s: denied, retry after 20s
	// 3m0s: allowed, 2 left
}
