package core_test

import (
	"context"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
)

type namedAlgorithm struct {
	name string
	alg  core.Algorithm
}

// benchAlgorithms always admit: capacities far beyond what a run takes,
// with rates slow enough that keys never recover (and so stay in the table).
var benchAlgorithms = []namedAlgorithm{
	{"GCRA", core.GCRA{Rate: core.PerSecond(1), Burst: 1e9}},
	{"TokenBucket", core.TokenBucket{Rate: core.PerSecond(1), Burst: 1e9}},
	{"LeakyBucket", core.LeakyBucket{Rate: core.PerSecond(1), Capacity: 1e9, NoDelay: 1e9}},
	{"FixedWindow", core.FixedWindow{Quota: 1e15, Window: 24 * time.Hour}},
	{"SlidingLog", core.SlidingLog{Quota: 8, Window: time.Nanosecond}},
	{"SlidingWindow", core.SlidingWindow{Quota: 1e15, Window: 24 * time.Hour}},
	{"Hybrid", core.Hybrid{Quota: 1e12, Window: 24 * time.Hour}},
	{"RollingWindow", core.RollingWindow{Quota: 1e15, Window: 24 * time.Hour, Period: time.Hour}},
	{"WarmUp", core.WarmUp{Rate: core.PerSecond(1e9), WarmUp: time.Nanosecond}},
}

// liveAlgorithms are benchAlgorithms whose keys stay in the table for
// hours, for the benchmarks of many keys and heap per key: each key is hit
// a few times only, so the small sliding log and the slow warm-up still
// admit. (At 1/s, a key the buckets took one unit from recovers, and is
// dropped, a second later: within the time 1,000,000 inserts take. The
// rate here is benchmarks/'s.)
var liveAlgorithms = func() []namedAlgorithm {
	out := append([]namedAlgorithm(nil), benchAlgorithms...)
	for i := range out {
		switch out[i].name {
		case "GCRA":
			out[i].alg = core.GCRA{Rate: core.Per(1, 10*time.Minute), Burst: 1e6}
		case "TokenBucket":
			out[i].alg = core.TokenBucket{Rate: core.Per(1, 10*time.Minute), Burst: 1e6}
		case "LeakyBucket":
			out[i].alg = core.LeakyBucket{Rate: core.Per(1, 10*time.Minute), Capacity: 1e6, NoDelay: 1e6}
		case "SlidingLog":
			out[i].alg = core.SlidingLog{Quota: 8, Window: 24 * time.Hour}
		case "WarmUp":
			out[i].alg = core.WarmUp{Rate: core.PerHour(1), WarmUp: time.Hour}
		}
	}
	return out
}()

// denyAlgorithms admit a little and then deny for a long time.
var denyAlgorithms = []namedAlgorithm{
	{"GCRA", core.GCRA{Rate: core.PerDay(1), Burst: 1}},
	{"TokenBucket", core.TokenBucket{Rate: core.PerDay(1), Burst: 1}},
	{"LeakyBucket", core.LeakyBucket{Rate: core.PerDay(1), Capacity: 1}},
	{"FixedWindow", core.FixedWindow{Quota: 1, Window: 24 * time.Hour}},
	{"SlidingLog", core.SlidingLog{Quota: 8, Window: 24 * time.Hour}},
	{"SlidingWindow", core.SlidingWindow{Quota: 1, Window: 24 * time.Hour}},
	{"Hybrid", core.Hybrid{Quota: 1, Window: 24 * time.Hour}},
	{"RollingWindow", core.RollingWindow{Quota: 1, Window: 24 * time.Hour, Period: time.Hour}},
	{"WarmUp", core.WarmUp{Rate: core.PerDay(1), WarmUp: time.Hour}},
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
		algs []namedAlgorithm
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
	for _, a := range liveAlgorithms {
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
	for _, a := range liveAlgorithms {
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
