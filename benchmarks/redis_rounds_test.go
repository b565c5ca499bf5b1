package benchmarks

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// BenchmarkRedisRounds is the Redis comparison as one interleaved run: the
// same redis-server, six scenarios (one hot key and 10,000 keys, each from
// 1, 8 and 64 goroutines, on the allow path), and rounds in which every
// library decides every scenario once, for a fixed time, in an order
// rotated from round to round, so that a noisy stretch of a shared host
// spreads over every library. It prints, per scenario and library, the
// median decisions/s with its range, the client's allocations per decision
// (runtime.MemStats, the whole process: library, go-redis and harness),
// and Redis's server time: usec_per_call of the library's script command
// and the µs of its script calls per decision (INFO commandstats, reset
// before each measurement), redis-server's CPU time per decision (INFO
// cpu: commands, network and all), this process's (getrusage: the
// library, go-redis and the harness), and the share of decisions that
// failed (an error, counted for the libraries that report one).
// The ratios to ulule are reported as metrics.
//
// Every library gets the same go-redis client options: PoolSize 64 and, as
// redisClient's, ContextTimeoutEnabled (FG_CONTEXT_TIMEOUT=off leaves it
// out: floodgate then hands every decision to its pipeline workers).
//
// Run it once (-benchtime 1x); FG_ROUNDS (default 6), FG_ROUND_TIME
// (default 1s), FG_LIBS (default "floodgate,ulule"; any of the Redis
// libraries) and FG_SCENARIOS (default all, e.g. "hot-g1,10000keys-g8")
// tune it:
//
//	go test -run '^$' -bench '^BenchmarkRedisRounds$' -benchtime 1x .
func BenchmarkRedisRounds(b *testing.B) {
	rounds := envInt("FG_ROUNDS", 6)
	per := 1 * time.Second
	if v := os.Getenv("FG_ROUND_TIME"); v != "" {
		d, err := time.ParseDuration(v)
		must(err)
		per = d
	}
	names := []string{"floodgate", "ulule"}
	if v := os.Getenv("FG_LIBS"); v != "" {
		names = strings.Split(v, ",")
	}
	var libs []redisLibrary
	for _, n := range names {
		i := slices.IndexFunc(redisLibraries, func(l redisLibrary) bool { return l.name == n })
		if i < 0 {
			b.Fatalf("FG_LIBS: no Redis library %q", n)
		}
		libs = append(libs, redisLibraries[i])
	}
	type scenario struct {
		name       string
		keys, gors int
	}
	var scenarios []scenario
	for _, k := range []int{1, 10000} {
		for _, g := range []int{1, 8, 64} {
			name := "hot"
			if k > 1 {
				name = strconv.Itoa(k) + "keys"
			}
			scenarios = append(scenarios, scenario{fmt.Sprintf("%s-g%d", name, g), k, g})
		}
	}
	if v := os.Getenv("FG_SCENARIOS"); v != "" {
		want := strings.Split(v, ",")
		scenarios = slices.DeleteFunc(scenarios, func(sc scenario) bool { return !slices.Contains(want, sc.name) })
	}
	keys := make([]string, 10000)
	for i := range keys {
		keys[i] = "client-" + strconv.Itoa(i)
	}

	// One client and one allower per library for the whole run (warm
	// pools, loaded scripts), on one flushed server.
	admin, _ := redisClient(b)
	allowers := make([]allower, len(libs))
	ctxTimeout := os.Getenv("FG_CONTEXT_TIMEOUT") != "off"
	for i, lib := range libs {
		c := redis.NewClient(&redis.Options{Addr: redisSrv.addr, PoolSize: 64, ContextTimeoutEnabled: ctxTimeout})
		b.Cleanup(func() { c.Close() })
		allowers[i] = lib.new(b, c, specAllow)
		allowers[i].Allow(keys[0])
	}

	type sample struct{ rate, allocs, perCall, perDecision, cpu, self, errs float64 }
	got := make(map[string][]sample) // scenario/library
	for r := range rounds {
		for _, sc := range scenarios {
			for j := range libs {
				li := (j + r) % len(libs)
				a := allowers[li]
				measure(a, keys[:sc.keys], sc.gors, per/10) // warm up
				must(admin.ConfigResetStat(context.Background()).Err())
				cpu0 := serverCPU(admin)
				var m0, m1 runtime.MemStats
				runtime.ReadMemStats(&m0)
				self0 := selfCPU()
				e0 := errCount(a)
				n, elapsed := measure(a, keys[:sc.keys], sc.gors, per)
				self := selfCPU() - self0
				runtime.ReadMemStats(&m1)
				cpu := serverCPU(admin) - cpu0
				failed := errCount(a) - e0
				calls, usec := commandStats(admin)
				main := ""
				for cmd, c := range calls {
					if (cmd == "fcall" || cmd == "evalsha") && (main == "" || c > calls[main]) {
						main = cmd
					}
				}
				var total float64 // the scripts' time, commands they call included
				for _, cmd := range []string{"fcall", "evalsha", "eval"} {
					total += usec[cmd]
				}
				s := sample{
					rate:        float64(n) / elapsed.Seconds(),
					allocs:      float64(m1.Mallocs-m0.Mallocs) / float64(n),
					perDecision: total / float64(n),
					cpu:         cpu * 1e6 / float64(n),
					self:        self.Seconds() * 1e6 / float64(n),
					errs:        float64(failed) / float64(n),
				}
				if main != "" {
					s.perCall = usec[main] / float64(calls[main])
				}
				k := sc.name + "/" + libs[li].name
				got[k] = append(got[k], s)
			}
		}
	}
	median := func(ss []sample, f func(sample) float64) (med, lo, hi float64) {
		v := make([]float64, len(ss))
		for i, s := range ss {
			v[i] = f(s)
		}
		slices.Sort(v)
		m := len(v) / 2
		med = v[m]
		if len(v)%2 == 0 {
			med = (v[m-1] + v[m]) / 2
		}
		return med, v[0], v[len(v)-1]
	}
	var out strings.Builder
	fmt.Fprintf(&out, "%d rounds of %v per library and scenario, medians [min–max]\n", rounds, per)
	fmt.Fprintf(&out, "%-14s %-10s %26s %8s %11s %14s %10s %10s %10s %7s\n", "scenario", "library", "decisions/s", "vs ulule",
		"allocs/dec", "usec_per_call", "script µs", "server cpu", "client cpu", "errors")
	for _, sc := range scenarios {
		ref, _, _ := median(got[sc.name+"/ulule"], func(s sample) float64 { return s.rate })
		for _, lib := range libs {
			ss := got[sc.name+"/"+lib.name]
			rate, lo, hi := median(ss, func(s sample) float64 { return s.rate })
			allocs, _, _ := median(ss, func(s sample) float64 { return s.allocs })
			perCall, _, _ := median(ss, func(s sample) float64 { return s.perCall })
			perDec, _, _ := median(ss, func(s sample) float64 { return s.perDecision })
			cpu, _, _ := median(ss, func(s sample) float64 { return s.cpu })
			self, _, _ := median(ss, func(s sample) float64 { return s.self })
			errs, _, maxErrs := median(ss, func(s sample) float64 { return s.errs })
			ratio := ""
			if ref > 0 {
				ratio = fmt.Sprintf("%.2f×", rate/ref)
				if lib.name != "ulule" {
					b.ReportMetric(rate/ref, sc.name+"/"+lib.name+"-vs-ulule")
				}
			}
			fmt.Fprintf(&out, "%-14s %-10s %9.0f [%6.0f–%6.0f] %8s %11.1f %14.2f %10.2f %10.1f %10.1f %7s\n", sc.name, lib.name,
				rate, lo, hi, ratio, allocs, perCall, perDec, cpu, self, errText(errs, maxErrs))
		}
	}
	fmt.Print(out.String())
}

// errText shows the median and the largest share of failed decisions.
func errText(med, hi float64) string {
	if hi == 0 {
		return "0"
	}
	return fmt.Sprintf("%.1g/%.1g", med, hi)
}

// errCount returns a's failed decisions so far.
func errCount(a allower) int64 {
	if e, ok := a.(errCounter); ok {
		return e.Errors()
	}
	return 0
}

// selfCPU returns the CPU time this process has used (user and system).
func selfCPU() time.Duration {
	var ru syscall.Rusage
	must(syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// measure decides on keys from g goroutines for d, each cycling over its
// own share of the keys, and returns the decisions made and the time taken.
func measure(a allower, keys []string, g int, d time.Duration) (int64, time.Duration) {
	var stop atomic.Bool
	var done atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	t := time.AfterFunc(d, func() { stop.Store(true) })
	defer t.Stop()
	for w := range g {
		wg.Go(func() {
			i, n := w*len(keys)/g, int64(0)
			for !stop.Load() {
				a.Allow(keys[i%len(keys)])
				i++
				n++
			}
			done.Add(n)
		})
	}
	wg.Wait()
	return done.Load(), time.Since(start)
}

// commandStats reads INFO commandstats: calls and usec per command.
func commandStats(c *redis.Client) (calls map[string]int64, usec map[string]float64) {
	s, err := c.Info(context.Background(), "commandstats").Result()
	must(err)
	calls, usec = map[string]int64{}, map[string]float64{}
	for line := range strings.SplitSeq(s, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":")
		cmd, isCmd := strings.CutPrefix(name, "cmdstat_")
		if !ok || !isCmd || cmd == "info" || cmd == "config|resetstat" {
			continue
		}
		for f := range strings.SplitSeq(rest, ",") {
			k, v, _ := strings.Cut(f, "=")
			switch k {
			case "calls":
				calls[cmd], _ = strconv.ParseInt(v, 10, 64)
			case "usec":
				usec[cmd], _ = strconv.ParseFloat(v, 64)
			}
		}
	}
	return calls, usec
}

// serverCPU returns redis-server's CPU seconds so far (INFO cpu).
func serverCPU(c *redis.Client) float64 {
	s, err := c.Info(context.Background(), "cpu").Result()
	must(err)
	var total float64
	for line := range strings.SplitSeq(s, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if ok && (k == "used_cpu_sys" || k == "used_cpu_user") {
			f, _ := strconv.ParseFloat(v, 64)
			total += f
		}
	}
	return total
}

func envInt(name string, def int) int {
	if v := os.Getenv(name); v != "" {
		n, err := strconv.Atoi(v)
		must(err)
		return n
	}
	return def
}
