package core_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/floodgate-go/floodgate/core"
)

// A caller that would rather wait than be refused: with a burst of 1, the
// second Wait returns once the limit admits it (about 50 ms later); a
// wait that would outlast the context's deadline fails at once.
func ExampleWaiter() {
	p := core.MustPolicy("outgoing", core.Limit{Name: "outgoing", Algorithm: core.GCRA{Rate: core.PerSecond(20), Burst: 1}})
	l, err := core.NewLimiter(p)
	if err != nil {
		panic(err)
	}
	w, err := core.NewWaiter(l, core.WaitOptions{MaxWaiters: 16})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	for range 2 {
		res, err := w.Wait(ctx, "partner-api") // the second waits about 50 ms
		fmt.Println(res.Allowed, err)
	}

	// One per hour: a second call would wait an hour, past the deadline.
	hourly, err := core.NewLimiter(core.MustPolicy("report", core.Limit{Name: "report", Algorithm: core.GCRA{Rate: core.PerHour(1)}}))
	if err != nil {
		panic(err)
	}
	hw, err := core.NewWaiter(hourly, core.WaitOptions{})
	if err != nil {
		panic(err)
	}
	short, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	_, _ = hw.Wait(short, "tenant-1")
	res, err := hw.Wait(short, "tenant-1") // fails at once
	fmt.Println(errors.Is(err, core.ErrWaitExceedsDeadline), res.RetryAfter.Round(time.Minute))
	// Output:
	// true <nil>
	// true <nil>
	// true 1h0m0s
}
