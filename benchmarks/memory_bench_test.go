package benchmarks

import (
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

const manyKeys = 1_000_000

// build makes the library's allower for s (real time) and closes it when b
// ends.
func build(b *testing.B, lib library, s spec) allower {
	b.Helper()
	a, ok := lib.new(s, nil)
	if !ok {
		b.Fatalf("%s: no real-time limiter", lib.name)
	}
	if c, ok := a.(closer); ok {
		b.Cleanup(c.Close)
	}
	return a
}

func reportErrors(b *testing.B, a allower) {
	if e, ok := a.(errCounter); ok && e.Errors() > 0 {
		b.ReportMetric(float64(e.Errors())/float64(b.N), "errors/op")
	}
}

// BenchmarkHotKey: one key decided over and over, on the allow path (the
// limit is never reached) and on the deny path (the key's single unit is
// spent before the timer starts), from one goroutine and from GOMAXPROCS.
// The limiter is built once per benchmark, never per call.
func BenchmarkHotKey(b *testing.B) {
	for _, path := range []struct {
		name string
		s    spec
	}{{"allow", specAllow}, {"deny", specDeny}} {
		for _, mode := range []string{"sequential", "parallel"} {
			for _, lib := range append(memoryLibraries[:len(memoryLibraries):len(memoryLibraries)], hotKeyLibraries...) {
				b.Run(path.name+"-"+mode+"/"+lib.name, func(b *testing.B) {
					a := build(b, lib, path.s)
					a.Allow("hot")
					if path.name == "deny" && a.Allow("hot") {
						b.Fatal("second decision allowed on the deny path")
					}
					b.ReportAllocs()
					b.ResetTimer()
					if mode == "sequential" {
						for i := 0; i < b.N; i++ {
							a.Allow("hot")
						}
					} else {
						b.RunParallel(func(pb *testing.PB) {
							for pb.Next() {
								a.Allow("hot")
							}
						})
					}
					b.StopTimer()
					reportErrors(b, a)
					if path.name == "allow" && !a.Allow("hot") {
						b.Fatal("allow path denied")
					}
				})
			}
		}
	}
}

func keyNames(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = "client-" + strconv.Itoa(i)
	}
	return keys
}

// probeStep returns the step between the keys a decision pass visits one
// after the other (see probeOrder): n/φ, the golden ratio's spacing (which
// keeps any run of visits spread over the whole key range), moved up to
// the next number prime to n, so that i ↦ i·step mod n visits every key
// once.
func probeStep(n int) int {
	s := max(1, int(float64(n)/math.Phi))
	for gcd(s, n) != 1 {
		s++
	}
	return s
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// probeOrder returns fresh copies of keys, in the order the timed pass
// decides them: key i·probeStep(n) mod n at position i. A server builds a
// request's key anew, so a library that keeps its keys compares against
// its own copy (with keys[i] itself, string equality stops at the equal
// pointers and never reads the kept bytes); and clients come back in no
// relation to the order they were first seen in, so the per-key memory a
// library allocated at insertion is not walked in its allocation order,
// where the hardware prefetches it. The copies are laid out in the order
// they are read, as fresh keys are at hand: reading them costs every
// library alike and little.
func probeOrder(keys []string) []string {
	n := len(keys)
	step := probeStep(n)
	probes := make([]string, n)
	for i := range probes {
		probes[i] = strings.Clone(keys[i*step%n])
	}
	return probes
}

// BenchmarkManyKeys decides for 1,000,000 distinct existing keys from
// GOMAXPROCS goroutines (each key is inserted by a first pass before the
// timer starts; the filled limiter is kept across b.N rounds), each
// decision given a fresh copy of its key, visited in an order unrelated to
// the insertion's (probeOrder).
func BenchmarkManyKeys(b *testing.B) {
	keys := keyNames(manyKeys)
	probes := probeOrder(keys)
	for _, lib := range memoryLibraries {
		var a allower
		b.Run("parallel/"+lib.name, func(b *testing.B) {
			if a == nil {
				a, _ = lib.new(specMany, nil)
				for _, k := range keys {
					a.Allow(k)
				}
			}
			var next atomic.Uint64
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				i := (next.Add(1) * 7919 * 127) % manyKeys // goroutines start far apart
				for pb.Next() {
					a.Allow(probes[i])
					if i++; i == manyKeys {
						i = 0
					}
				}
			})
			b.StopTimer()
			reportErrors(b, a)
		})
		if c, ok := a.(closer); ok {
			c.Close()
		}
		a = nil
	}
}

// BenchmarkHeapPerKey reports the heap a limiter keeps per key once it holds
// 1,000,000 keys: HeapAlloc after GC, after inserting them into a new
// limiter, minus HeapAlloc after GC before. Each key string is built fresh
// during the insertion, as a server builds it per request: a library that
// retains the key pays for its bytes, one that does not keeps nothing of it.
// Run with -benchtime 1x.
func BenchmarkHeapPerKey(b *testing.B) {
	for _, lib := range memoryLibraries {
		b.Run(lib.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				a, _ := lib.new(specMany, nil)
				for k := range manyKeys {
					a.Allow("client-" + strconv.Itoa(k))
				}
				runtime.GC()
				runtime.ReadMemStats(&after)
				b.ReportMetric((float64(after.HeapAlloc)-float64(before.HeapAlloc))/manyKeys, "B/key")
				runtime.KeepAlive(a)
				if c, ok := a.(closer); ok {
					c.Close()
				}
			}
		})
	}
}
