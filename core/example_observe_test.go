package core_test

import (
	"context"
	"fmt"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
)

// printer is an Observer printing what it is told.
type printer struct{}

func (printer) Decided(_ context.Context, d core.Decision) {
	fmt.Printf("%s/%s: %s (cost %d, store %s, source %s)\n", d.Policy, d.LimitName, d.Verdict, d.Cost, d.Store, d.Source)
}

func (printer) StoreChanged(e core.StoreEvent) { fmt.Println("store", e.Store, e.Change) }

func ExampleWithObserver() {
	p := core.MustPolicy("api", core.Limit{Name: "minute", Algorithm: core.GCRA{Rate: core.PerMinute(1), Burst: 1}})
	l, err := core.NewLimiter(p, core.WithObserver(printer{}), core.WithClock(coretest.NewClock(coretest.T0)))
	if err != nil {
		panic(err)
	}
	for range 2 {
		_, _ = l.Allow(context.Background(), "client-1") // the observer never sees the key
	}
	// Output:
	// api/minute: allowed (cost 1, store memory, source store)
	// api/minute: denied (cost 1, store memory, source store)
}
