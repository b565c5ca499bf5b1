package core_test

import (
	"context"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
)

// BenchmarkObserver decides on one hot key of the memory store without an
// observer and with one that counts (the cost of being observed), on a
// fake clock so that the figures (and callgrind's instruction counts:
// GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind
// --toggle-collect='github.com/floodgate-go/floodgate/core.(*Limiter).Take'
// core.test -test.bench '^BenchmarkObserver$/allow/none$' -test.benchtime
// 200000x) are the decision's alone. Compare "none" with the same
// benchmark built before observers existed.
func BenchmarkObserver(b *testing.B) {
	ctx := context.Background()
	for _, path := range []struct {
		name string
		alg  core.Algorithm
	}{{"allow", benchAlgorithms[0].alg}, {"deny", denyAlgorithms[0].alg}} {
		for _, obs := range []struct {
			name string
			o    core.Observer
		}{{"none", nil}, {"counting", &nopObserver{}}} {
			b.Run(path.name+"/"+obs.name, func(b *testing.B) {
				l, err := core.NewLimiter(core.MustPolicy("bench", core.Limit{Name: "bench", Algorithm: path.alg}),
					core.WithObserver(obs.o), core.WithClock(coretest.NewClock(coretest.T0)))
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
