package core_test

import (
	"context"
	"fmt"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
)

func ExampleBackoff() {
	// 3 free failures per hour, then lockouts of 1 s, 2 s, 4 s... up to 4 s.
	b := core.Backoff{Free: 3, Window: time.Hour, Base: time.Second, Max: 4 * time.Second, Forgive: time.Hour}
	p := core.MustPolicy("login", core.Limit{Name: "account", Algorithm: b})
	clk := coretest.NewClock(time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC))
	l, err := core.NewLimiter(p, core.WithClock(clk))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	fail := func() {
		r, _ := l.Allow(ctx, "alice")
		fmt.Printf("+%v: allowed=%v remaining=%d retry after %v\n",
			clk.Now().Sub(time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)), r.Allowed, r.Remaining, r.RetryAfter)
	}
	for range 5 {
		fail()
	}
	for _, d := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second} {
		clk.Advance(d)
		fail()
		fail()
	}
	// A success is refunded: it costs nothing.
	clk.Advance(time.Hour)
	r, _ := l.Allow(ctx, "alice")
	_, _ = l.Refund(ctx, "alice", r)
	r, _ = l.Peek(ctx, "alice", 1)
	fmt.Println("after a quiet hour and a success: remaining", r.Remaining)
	// Output:
	// +0s: allowed=true remaining=2 retry after 0s
	// +0s: allowed=true remaining=1 retry after 0s
	// +0s: allowed=true remaining=0 retry after 0s
	// +0s: allowed=true remaining=0 retry after 0s
	// +0s: allowed=false remaining=0 retry after 1s
	// +1s: allowed=true remaining=0 retry after 0s
	// +1s: allowed=false remaining=0 retry after 2s
	// +3s: allowed=true remaining=0 retry after 0s
	// +3s: allowed=false remaining=0 retry after 4s
	// +7s: allowed=true remaining=0 retry after 0s
	// +7s: allowed=false remaining=0 retry after 4s
	// +11s: allowed=true remaining=0 retry after 0s
	// +11s: allowed=false remaining=0 retry after 4s
	// after a quiet hour and a success: remaining 2
}
