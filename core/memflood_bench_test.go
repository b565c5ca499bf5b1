package core_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
)

// BenchmarkHotKeyUnderFlood decides for one existing key of a full table
// (1<<18 keys, GCRA) while the table is idle and while another goroutine
// floods it with distinct new keys (each insert forgetting an entry): the
// flood must not make an existing key's decision more than twice as slow.
func BenchmarkHotKeyUnderFlood(b *testing.B) {
	const maxKeys = 1 << 18
	ctx := context.Background()
	keys := keyNames(2 * maxKeys)
	for _, flood := range []bool{false, true} {
		name := "idle"
		if flood {
			name = "flooded"
		}
		b.Run(name, func(b *testing.B) {
			l := benchLimiter(b, core.GCRA{Rate: core.PerSecond(1), Burst: 1e9}, maxKeys)
			for _, k := range keys[:maxKeys] {
				_, _ = l.Allow(ctx, k)
			}
			_, _ = l.Allow(ctx, "hot")
			var stop atomic.Bool
			var wg sync.WaitGroup
			var inserted atomic.Int64
			if flood {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := maxKeys; !stop.Load(); i++ {
						if i == len(keys) {
							i = 0
						}
						_, _ = l.Allow(ctx, keys[i])
						inserted.Add(1)
					}
				}()
			}
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			for b.Loop() {
				_, _ = l.Allow(ctx, "hot")
			}
			elapsed := time.Since(start)
			b.StopTimer()
			stop.Store(true)
			wg.Wait()
			if flood {
				b.ReportMetric(float64(inserted.Load())/elapsed.Seconds(), "floodkeys/s")
			}
		})
	}
}
