package core_test

import (
	"context"
	"fmt"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
)

// A queue draining 2 requests per second with room for 4, the first 2 of a
// burst undelayed: nginx's "limit_req rate=2r/s burst=3 delay=1".
func ExampleLeakyBucket() {
	p := core.MustPolicy("api", core.Limit{
		Name:      "queue",
		Algorithm: core.LeakyBucket{Rate: core.PerSecond(2), Capacity: 4, NoDelay: 2},
	})
	clk := coretest.NewClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	l, _ := core.NewLimiter(p, core.WithClock(clk))
	ctx := context.Background()
	for i := range 5 {
		r, _ := l.Allow(ctx, "client")
		if r.Allowed {
			fmt.Printf("request %d: wait %v\n", i, r.Delay)
		} else {
			fmt.Printf("request %d: rejected, retry after %v\n", i, r.RetryAfter)
		}
	}
	clk.Advance(time.Second)
	r, _ := l.Allow(ctx, "client")
	fmt.Printf("1s later: wait %v\n", r.Delay)
	// Output:
	// request 0: wait 0s
	// request 1: wait 0s
	// request 2: wait 500ms
	// request 3: wait 1s
	// request 4: rejected, retry after 500ms
	// 1s later: wait 500ms
}
