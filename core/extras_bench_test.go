package core_test

import (
	"context"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
)

// BenchmarkExtras decides on one hot key of the memory store without any
// extra, with a heavy-hitter sketch (core.WithTopKeys), and with a shadow
// limit of the same algorithm, on a fake clock (as BenchmarkObserver;
// callgrind: GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind
// --toggle-collect='github.com/floodgate-go/floodgate/core.(*Limiter).Take'
// core.test -test.bench '^BenchmarkExtras$/allow/none$' -test.benchtime
// 200000x). "none" is the cost of the extras when not enabled: compare it
// with the same benchmark built before they existed.
func BenchmarkExtras(b *testing.B) {
	ctx := context.Background()
	for _, path := range []struct {
		name string
		alg  core.Algorithm
	}{{"allow", benchAlgorithms[0].alg}, {"deny", denyAlgorithms[0].alg}} {
		for _, extra := range []string{"none", "topkeys", "shadow"} {
			b.Run(path.name+"/"+extra, func(b *testing.B) {
				limits := []core.Limit{{Name: "bench", Algorithm: path.alg}}
				opts := []core.Option{core.WithClock(coretest.NewClock(coretest.T0))}
				switch extra {
				case "topkeys":
					opts = append(opts, core.WithTopKeys(core.TopKeysOptions{}))
				case "shadow":
					limits = append(limits, core.Limit{Name: "shadow", Algorithm: path.alg, Shadow: true})
				}
				l, err := core.NewLimiter(core.MustPolicy("bench", limits...), opts...)
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
