package core_test

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
)

// BenchmarkAttackHotKeyUnderFloodLocked is BenchmarkHotKeyUnderFlood for
// the policies the memory store decides under its shard locks (every one
// but a lone GCRA or LeakyBucket): one existing key decided while another
// goroutine decides the table's other keys (busy) or floods it with new
// keys, each insert evicting under the shard's lock (flooded). It reports
// the hot key's mean and 99th-percentile latency: a flood must not make
// an existing key's decisions more than twice as slow as busy.
func BenchmarkAttackHotKeyUnderFloodLocked(b *testing.B) {
	const maxKeys = 1 << 16
	ctx := context.Background()
	keys := keyNames(2 * maxKeys)
	for _, tc := range []struct {
		name string
		a    core.Algorithm
	}{
		{"fixed-window", core.FixedWindow{Quota: 1e9, Window: time.Hour}},
		{"sliding-log-64", core.SlidingLog{Quota: 64, Window: time.Nanosecond}},
		{"rolling-1024", core.RollingWindow{Quota: 1e9, Window: 1024 * time.Hour, Period: time.Hour}},
	} {
		for _, mode := range []string{"busy", "flooded"} {
			b.Run(tc.name+"/"+mode, func(b *testing.B) {
				l := benchLimiter(b, tc.a, maxKeys)
				for _, k := range keys[:maxKeys] {
					_, _ = l.Allow(ctx, k)
				}
				_, _ = l.Allow(ctx, "hot")
				var stop atomic.Bool
				var wg sync.WaitGroup
				wg.Add(1)
				go func() {
					defer wg.Done()
					from, to := maxKeys, len(keys)
					if mode == "busy" {
						from, to = 0, maxKeys
					}
					for i := from; !stop.Load(); i++ {
						if i == to {
							i = from
						}
						_, _ = l.Allow(ctx, keys[i])
					}
				}()
				lat := make([]int64, 0, 1<<20)
				b.ResetTimer()
				for b.Loop() {
					s := time.Now()
					_, _ = l.Allow(ctx, "hot")
					if len(lat) < cap(lat) {
						lat = append(lat, int64(time.Since(s)))
					}
				}
				b.StopTimer()
				stop.Store(true)
				wg.Wait()
				slices.Sort(lat)
				b.ReportMetric(float64(lat[len(lat)*99/100]), "p99-ns")
				b.ReportMetric(float64(lat[len(lat)*999/1000]), "p999-ns")
			})
		}
	}
}
