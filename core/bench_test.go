package core_test

import (
	"context"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/floodgate-go/floodgate/core"
)

// benchAlgorithms are the algorithms every benchmark runs, keyed by name.
var benchAlgorithms = []struct {
	name string
	alg  core.Algorithm
}{
	{"GCRA", core.GCRA{Rate: core.PerSecond(1), Burst: 1e9}},
}

// denyAlgorithms admit one unit and then deny for a long time.
var denyAlgorithms = []struct {
	name string
	alg  core.Algorithm
}{
	{"GCRA", core.GCRA{Rate: core.PerDay(1), Burst: 1}},
}

func benchLimiter(b *testing.B, a core.Algorithm, maxKeys int) *core.Limiter {
	b.Helper()
	p, err := core.Single("bench", a)
	if err != nil {
		b.Fatal(err)
	}
	ms, err := core.NewMemoryStore(core.MemoryOptions{MaxKeys: maxKeys})
	if err != nil {
		b.Fatal(err)
	}
	l, err := core.NewLimiter(p, core.WithStore(ms))
	if err != nil {
		b.Fatal(err)
	}
	return l
}

func BenchmarkHotKey(b *testing.B) {
	ctx := context.Background()
	for _, tc := range []struct {
		path string
		algs []struct {
			name string
			alg  core.Algorithm
		}
	}{{"allow", benchAlgorithms}, {"deny", denyAlgorithms}} {
		for _, a := range tc.algs {
			b.Run(a.name+"/"+tc.path+"/sequential", func(b *testing.B) {
				l := benchLimiter(b, a.alg, 0)
				b.ReportAllocs()
				for b.Loop() {
					_, _ = l.Allow(ctx, "hot")
				}
			})
			b.Run(a.name+"/"+tc.path+"/parallel", func(b *testing.B) {
				l := benchLimiter(b, a.alg, 0)
				b.ReportAllocs()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						_, _ = l.Allow(ctx, "hot")
					}
				})
			})
		}
	}
}

const manyKeys = 1_000_000

func keyNames(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = "client-" + strconv.Itoa(i)
	}
	return keys
}

// BenchmarkManyKeys decides for 1,000,000 distinct keys in parallel, after a
// first pass has inserted them all: the figure is for existing keys.
func BenchmarkManyKeys(b *testing.B) {
	ctx := context.Background()
	keys := keyNames(manyKeys)
	for _, a := range benchAlgorithms {
		b.Run(a.name, func(b *testing.B) {
			l := benchLimiter(b, a.alg, 2*manyKeys)
			for _, k := range keys {
				_, _ = l.Allow(ctx, k)
			}
			var next atomic.Uint64
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				i := next.Add(1<<32) % manyKeys // spread goroutines apart
				for pb.Next() {
					_, _ = l.Allow(ctx, keys[i])
					if i++; i == manyKeys {
						i = 0
					}
				}
			})
		})
	}
}

// BenchmarkHeapPerKey reports the heap kept per key by a table of 1,000,000
// keys, after GC, as B/key.
func BenchmarkHeapPerKey(b *testing.B) {
	ctx := context.Background()
	keys := keyNames(manyKeys)
	for _, a := range benchAlgorithms {
		b.Run(a.name, func(b *testing.B) {
			for b.Loop() {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				l := benchLimiter(b, a.alg, 2*manyKeys)
				for _, k := range keys {
					_, _ = l.Allow(ctx, k)
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/manyKeys, "B/key")
				runtime.KeepAlive(l)
			}
		})
	}
}
