package observetest

import (
	"context"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
)

// Bench is an observer to benchmark: Observer sees decisions asked with
// Ctx (nil: context.Background()).
type Bench struct {
	Name     string
	Observer core.Observer
	Ctx      context.Context
}

// BenchObservers decides on one hot key of a memory store, on a fake
// clock (so that the figures are the decision's alone), allowed and
// denied, first without an observer ("allow/none", "deny/none") and then
// with each of obs ("allow/NAME", "deny/NAME"); core's BenchmarkObserver
// is this with a counting observer. -count repeats each sub-benchmark in a
// row (none, none…, then each observer): for interleaved figures, run the
// benchmark with -count 1 once per round.
func BenchObservers(b *testing.B, obs ...Bench) {
	for _, path := range []struct {
		name string
		alg  core.Algorithm
	}{
		{"allow", core.GCRA{Rate: core.PerSecond(1), Burst: 1e9}},
		{"deny", core.GCRA{Rate: core.PerDay(1), Burst: 1}},
	} {
		for _, o := range append([]Bench{{Name: "none"}}, obs...) {
			b.Run(path.name+"/"+o.Name, func(b *testing.B) {
				ctx := o.Ctx
				if ctx == nil {
					ctx = context.Background()
				}
				l, err := core.NewLimiter(core.MustPolicy("bench", core.Limit{Name: "bench", Algorithm: path.alg}),
					core.WithObserver(o.Observer), core.WithClock(coretest.NewClock(coretest.T0)))
				if err != nil {
					b.Fatal(err)
				}
				var res core.Result
				b.ReportAllocs()
				for b.Loop() {
					_ = l.Take(ctx, "hot", 1, &res)
				}
			})
		}
	}
}
