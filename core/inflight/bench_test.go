package inflight_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/floodgate-go/floodgate/core/inflight"
)

// BenchmarkMemoryAcquireRelease: one slot taken and given back on a hot
// key, sequentially and from every goroutine.
func BenchmarkMemoryAcquireRelease(b *testing.B) {
	m, err := inflight.NewMemory(1<<20, inflight.MemoryOptions{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.Run("sequential", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s, err := m.Acquire(ctx, "hot")
			if err != nil {
				b.Fatal(err)
			}
			_ = s.Release(ctx)
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				s, err := m.Acquire(ctx, "hot")
				if err != nil {
					b.Fatal(err)
				}
				_ = s.Release(ctx)
			}
		})
	})
	keys := make([]string, 10000)
	for i := range keys {
		keys[i] = "k" + strconv.Itoa(i)
	}
	b.Run("10000 keys", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			s, err := m.Acquire(ctx, keys[i%len(keys)])
			if err != nil {
				b.Fatal(err)
			}
			_ = s.Release(ctx)
			i++
		}
	})
}
