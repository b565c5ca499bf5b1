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
// (1<<18 keys, GCRA) while the table is idle, while another goroutine
// decides for the table's other keys (busy: the CPU and cache pressure of
// a second client, without inserts), and while it floods the table with
// distinct new keys (flooded: each insert forgetting an entry). The flood
// must not make an existing key's decision more than twice as slow as
// normal; busy separates the store's share from that of sharing the CPU.
func BenchmarkHotKeyUnderFlood(b *testing.B) {
	const maxKeys = 1 << 18
	ctx := context.Background()
	keys := keyNames(2 * maxKeys)
	for _, mode := range []string{"idle", "busy", "flooded"} {
		b.Run(mode, func(b *testing.B) {
			l := benchLimiter(b, core.GCRA{Rate: core.PerSecond(1), Burst: 1e9}, maxKeys)
			for _, k := range keys[:maxKeys] {
				_, _ = l.Allow(ctx, k)
			}
			_, _ = l.Allow(ctx, "hot")
			var stop atomic.Bool
			var wg sync.WaitGroup
			var inserted atomic.Int64
			if mode != "idle" {
				wg.Add(1)
				go func() {
					defer wg.Done()
					from, to := maxKeys, len(keys) // new keys
					if mode == "busy" {
						from, to = 0, maxKeys // existing keys
					}
					for i := from; !stop.Load(); i++ {
						if i == to {
							i = from
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
			if mode != "idle" {
				b.ReportMetric(float64(inserted.Load())/elapsed.Seconds(), "otherkeys/s")
			}
		})
	}
}
