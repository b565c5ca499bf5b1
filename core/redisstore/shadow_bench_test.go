package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
)

// BenchmarkShadow: sequential takes of one key on Redis without and with
// a shadow limit (decided by a second script call, in flight with the
// enforced one's), and with a heavy-hitter sketch (no Redis call), to
// show what each costs a take's latency. Run the cases interleaved:
// -test.bench 'BenchmarkShadow' -test.count 5.
func BenchmarkShadow(b *testing.B) {
	srv := startRedis(b)
	c := srv.Client(b)
	ctx := context.Background()
	alg := core.GCRA{Rate: core.PerSecond(1e6), Burst: 1e9}
	for _, extra := range []string{"none", "shadow", "topkeys"} {
		b.Run(extra, func(b *testing.B) {
			s := newStore(b, c, redisstore.Options{Timeout: 5 * time.Second})
			limits := []core.Limit{{Name: "b", Algorithm: alg}}
			var opts []core.Option
			switch extra {
			case "shadow":
				limits = append(limits, core.Limit{Name: "s", Algorithm: alg, Shadow: true})
			case "topkeys":
				opts = append(opts, core.WithTopKeys(core.TopKeysOptions{}))
			}
			l, err := core.NewLimiter(core.MustPolicy("shadowbench", limits...), append(opts, core.WithStore(s))...)
			if err != nil {
				b.Fatal(err)
			}
			var res core.Result
			b.ReportAllocs()
			for b.Loop() {
				if err := l.Take(ctx, "k", 1, &res); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
