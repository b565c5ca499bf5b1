package benchmarks

import (
	"flag"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/floodgate-go/floodgate/core"
)

var (
	scaleMaxKeys = flag.Int("scale-max-keys", 10_000_000,
		"BenchmarkScaleKeys: the largest key count run (run.sh -smoke lowers it)")
	scaleMaxHeapGB = flag.Float64("scale-max-heap-gb", 2,
		"BenchmarkScaleKeys: a library whose B/key at the largest count measured so far, times the next count, "+
			"exceeds this many GB (1e9 B) of retained heap skips that count")
)

// scaleSizes are the key counts of BenchmarkScaleKeys.
var scaleSizes = []struct {
	name string
	n    int
}{{"10k", 10_000}, {"100k", 100_000}, {"1M", 1_000_000}, {"10M", 10_000_000}}

// scaleLibraries are floodgate's GCRA and the peers that lead the 1M-key
// rows: go-limiter (sethvargo) and x/time/rate on time, httprate on heap.
var scaleLibraries = []string{"floodgate", "sethvargo", "x-time-rate", "httprate"}

// newScaled builds a library of scaleLibraries for n keys: floodgate's
// MemoryStore bound is 2n (as ManyKeys' is 2 × 1M); the peers have no bound.
func newScaled(name string, n int) allower {
	if name == "floodgate" {
		p, err := core.Single("bench", gcraOf(specMany))
		must(err)
		ms, err := core.NewMemoryStore(core.MemoryOptions{MaxKeys: 2 * n})
		must(err)
		l, err := core.NewLimiter(p, core.WithStore(ms))
		must(err)
		return &floodgateAllower{l}
	}
	for _, lib := range memoryLibraries {
		if lib.name == name {
			a, _ := lib.new(specMany, nil)
			return a
		}
	}
	panic("benchmarks: no memory library " + name)
}

// scaleKeyWidth is the length of every key of BenchmarkScaleKeys:
// "client-" and 8 digits.
const scaleKeyWidth = 15

// scaleKeys returns n fixed-width keys laid end to end in one string, so
// that key i is a substring (no per-key header or allocation: at 10M keys a
// []string would add 320 MB to the process).
func scaleKeys(n int) string {
	var sb strings.Builder
	sb.Grow(n * scaleKeyWidth)
	var digits [20]byte
	for i := range n {
		d := strconv.AppendInt(digits[:0], int64(i), 10)
		sb.WriteString("client-")
		sb.WriteString("00000000"[len(d):])
		sb.Write(d)
	}
	return sb.String()
}

func scaleKey(all string, i int) string { return all[i*scaleKeyWidth : (i+1)*scaleKeyWidth] }

// scaleProbes returns the keys of all as probeOrder orders them: key
// i·probeStep(n) mod n at position i, laid end to end in a string of their
// own (the fresh copies a server would build).
func scaleProbes(all string, n int) string {
	var sb strings.Builder
	sb.Grow(len(all))
	step := probeStep(n)
	for i := range n {
		sb.WriteString(scaleKey(all, i*step%n))
	}
	return sb.String()
}

// scaleState is a library filled with n keys, the keys its timed pass
// decides (scaleProbes), and the heap it kept for them.
type scaleState struct {
	a      allower
	probes string
	n      int
	perKey float64
}

// fillScaled inserts n keys, each a fresh copy (as a server builds a key per
// request: a library that retains its keys pays for their bytes), and
// measures the heap kept: HeapAlloc after GC minus HeapAlloc after GC
// before, per key.
func fillScaled(name string, all string, n int) *scaleState {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	a := newScaled(name, n)
	for i := range n {
		a.Allow(strings.Clone(scaleKey(all, i)))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	return &scaleState{a: a, probes: scaleProbes(all, n), n: n,
		perKey: (float64(after.HeapAlloc) - float64(before.HeapAlloc)) / float64(n)}
}

// skipLoudly skips b and says why on stdout, in the shape of `go test -v`'s
// report ("--- SKIP: name" and an indented reason): without -v, a benchmark
// skipped on its first run prints nothing, and run.sh's report lists skips.
func skipLoudly(b *testing.B, reason string) {
	b.Helper()
	fmt.Printf("--- SKIP: %s\n    %s\n", b.Name(), reason)
	b.SkipNow()
}

// BenchmarkScaleKeys is ManyKeys at 10k, 100k, 1M and 10M keys for
// floodgate's GCRA and the leading peers: decisions on existing keys from
// GOMAXPROCS goroutines, each given a fresh copy of its key in probeOrder's
// order (ns/op), and the heap kept per key once they are
// inserted (B/key, as HeapPerKey). The keys are inserted once per process
// before the timer; a library whose retained heap at the next count would
// exceed -scale-max-heap-gb (estimated from its B/key at the largest count
// it already ran in this process) skips that count and says so.
func BenchmarkScaleKeys(b *testing.B) {
	perKey := map[string]float64{} // library → B/key at the largest count run so far
	for _, size := range scaleSizes {
		if size.n > *scaleMaxKeys {
			continue
		}
		var all string // built by the first library selected at this count
		for _, name := range scaleLibraries {
			var st *scaleState
			b.Run(size.name+"/"+name, func(b *testing.B) {
				if st == nil {
					if est := perKey[name] * float64(size.n); est > *scaleMaxHeapGB*1e9 {
						skipLoudly(b, fmt.Sprintf("estimated %.3g GB kept (%.0f B/key at a smaller count) > -scale-max-heap-gb %g",
							est/1e9, perKey[name], *scaleMaxHeapGB))
					}
					if all == "" {
						all = scaleKeys(size.n)
					}
					st = fillScaled(name, all, size.n)
					perKey[name] = st.perKey
				}
				var next atomic.Uint64
				b.ReportAllocs()
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					i := int((next.Add(1) * 7919 * 127) % uint64(st.n)) // goroutines start far apart
					for pb.Next() {
						st.a.Allow(scaleKey(st.probes, i))
						if i++; i == st.n {
							i = 0
						}
					}
				})
				b.StopTimer()
				b.ReportMetric(st.perKey, "B/key")
				reportErrors(b, st.a)
			})
			if st != nil {
				if c, ok := st.a.(closer); ok {
					c.Close()
				}
				st = nil // the closure b.Run kept sees it too
			}
		}
		all = ""
		runtime.GC()
	}
}
