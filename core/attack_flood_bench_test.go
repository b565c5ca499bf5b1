package core_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
)

// BenchmarkAttackFloodInsert compares, per algorithm, the work of a
// decision for an existing key (existing) with that of a new key inserted
// into a full table (flood: it sweeps a few slots and weighs up to
// evictScan candidates under the shard's lock). An existing key of the
// same shard waits for at most one such insert: the ratio is the flood's
// worst added latency, in decisions.
func BenchmarkAttackFloodInsert(b *testing.B) {
	const maxKeys = 1 << 12
	ctx := context.Background()
	algs := []core.Limit{
		{Name: "gcra", Algorithm: core.GCRA{Rate: core.PerSecond(1), Burst: 1e9}},
		{Name: "rolling-1024", Algorithm: core.RollingWindow{Quota: 1 << 30, Window: 1024 * time.Second, Period: time.Second}},
		{Name: "backoff-long", Algorithm: core.Backoff{Free: 1, Window: time.Hour, Base: time.Nanosecond, Max: 24 * time.Hour, Forgive: 48 * time.Hour}},
		{Name: "warmup", Algorithm: core.WarmUp{Rate: core.PerSecond(1000), WarmUp: time.Hour}},
		{Name: "sliding-log-256", Algorithm: core.SlidingLog{Quota: 256, Window: time.Hour}},
	}
	for _, a := range algs {
		keys := keyNames(8 * maxKeys)
		b.Run(a.Name+"/existing", func(b *testing.B) {
			l := benchLimiter(b, a.Algorithm, maxKeys)
			for _, k := range keys[:maxKeys/2] {
				_, _ = l.Allow(ctx, k)
			}
			i := 0
			for b.Loop() {
				_, _ = l.Allow(ctx, keys[i])
				if i++; i == maxKeys/2 {
					i = 0
				}
			}
		})
		b.Run(a.Name+"/flood", func(b *testing.B) {
			l := benchLimiter(b, a.Algorithm, maxKeys)
			for _, k := range keys[:2*maxKeys] {
				_, _ = l.Allow(ctx, k)
			}
			i := 0
			for b.Loop() {
				_, _ = l.Allow(ctx, keys[i])
				if i++; i == len(keys) {
					i = 0
				}
			}
		})
	}
}
