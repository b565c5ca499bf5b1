package benchmarks

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisScaleGoroutines and redisScaleKeys shape BenchmarkRedisScale.
var redisScaleGoroutines = []int{1, 8, 64, 256}

const redisScaleKeys = 10_000

// nameHook counts what a client sends per command name (lower case, as
// INFO commandstats names them) and its round trips (one per command or
// pipeline).
type nameHook struct {
	names sync.Map // string → *atomic.Int64
	trips atomic.Int64
}

func (h *nameHook) add(name string) {
	v, ok := h.names.Load(name)
	if !ok {
		v, _ = h.names.LoadOrStore(name, new(atomic.Int64))
	}
	v.(*atomic.Int64).Add(1)
}

func (h *nameHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *nameHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.add(cmd.Name())
		h.trips.Add(1)
		return next(ctx, cmd)
	}
}

func (h *nameHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, c := range cmds {
			h.add(c.Name())
		}
		h.trips.Add(1)
		return next(ctx, cmds)
	}
}

// sent returns the commands sent so far, per name.
func (h *nameHook) sent() map[string]int64 {
	m := map[string]int64{}
	h.names.Range(func(k, v any) bool {
		m[k.(string)] = v.(*atomic.Int64).Load()
		return true
	})
	return m
}

// serverStats is what INFO says of the server's work so far: per command
// (subcommands folded into their command, as a client names them) the calls
// and the microseconds spent executing them, and the CPU time of the
// process.
type serverStats struct {
	calls, usec map[string]int64
	cpu         float64 // seconds, user + system
}

func readServerStats(b *testing.B, c *redis.Client) serverStats {
	b.Helper()
	s, err := c.Info(context.Background(), "commandstats", "cpu").Result()
	if err != nil {
		b.Fatal(err)
	}
	st := serverStats{calls: map[string]int64{}, usec: map[string]int64{}}
	for line := range strings.SplitSeq(s, "\n") {
		line = strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(line, "cmdstat_"); ok {
			name, fields, _ := strings.Cut(rest, ":")
			name, _, _ = strings.Cut(name, "|")
			for f := range strings.SplitSeq(fields, ",") {
				k, v, _ := strings.Cut(f, "=")
				n, _ := strconv.ParseInt(v, 10, 64)
				switch k {
				case "calls":
					st.calls[name] += n
				case "usec":
					st.usec[name] += n
				}
			}
		}
		for _, k := range []string{"used_cpu_sys:", "used_cpu_user:"} {
			if v, ok := strings.CutPrefix(line, k); ok {
				f, err := strconv.ParseFloat(v, 64)
				if err != nil {
					b.Fatal(err)
				}
				st.cpu += f
			}
		}
	}
	return st
}

// serverMicros is the server's execution time of the commands the client
// sent between two readings, in µs. INFO commandstats also counts the
// commands a script calls (and a script's own time includes theirs), so a
// command the client sent is charged the share of its server calls that
// the client sent: a script's inner GET is not counted twice.
func serverMicros(before, after serverStats, sent map[string]int64) float64 {
	var total float64
	for name, n := range sent {
		calls := after.calls[name] - before.calls[name]
		if calls <= 0 || n <= 0 {
			continue
		}
		usec := float64(after.usec[name] - before.usec[name])
		total += usec * min(1, float64(n)/float64(calls))
	}
	return total
}

// BenchmarkRedisScale decides on the allow path against a local
// redis-server from exactly 1, 8, 64 and 256 goroutines (b.N decisions
// split between them; the client's pool holds 64 connections), on one hot
// key or over 10,000 keys (each goroutine starting at its own share). It
// reports decisions/s, the server's execution time per decision of the
// commands the client sent (srv-us/op, from INFO commandstats deltas), the
// server process's CPU per decision (srvcpu-us/op, INFO cpu: includes
// network I/O and parsing), the client's commands and round trips per
// decision, and its allocations per decision (allocs/op: the whole client
// process, which runs nothing else).
func BenchmarkRedisScale(b *testing.B) {
	many := make([]string, redisScaleKeys)
	for i := range many {
		many[i] = "client-" + strconv.Itoa(i)
	}
	for _, shape := range []struct {
		name string
		keys []string
	}{{"hot", []string{"hot"}}, {"10k", many}} {
		for _, g := range redisScaleGoroutines {
			for _, lib := range redisLibraries {
				b.Run(fmt.Sprintf("%s-g%d/%s", shape.name, g, lib.name), func(b *testing.B) {
					benchRedisScale(b, lib, shape.keys, g)
				})
			}
		}
	}
}

func benchRedisScale(b *testing.B, lib redisLibrary, keys []string, g int) {
	if redisSrv.once.Do(startRedis); redisSrv.err != nil {
		skipLoudly(b, redisSrv.err.Error())
	}
	c, _ := redisClient(b)
	hook := new(nameHook)
	c.AddHook(hook)
	stats := redis.NewClient(&redis.Options{Addr: redisSrv.addr})
	defer stats.Close()
	a := lib.new(b, c, specAllow)
	a.Allow(keys[0]) // loads scripts
	// g goroutines deciding: a first pass of one decision each opens the
	// pool's connections (untimed, unmeasured), the second is the measure.
	run := func(n int64) time.Duration {
		var done atomic.Int64
		var wg sync.WaitGroup
		start := time.Now()
		for w := range g {
			wg.Go(func() {
				i := w * (len(keys) / g)
				for done.Add(1) <= n {
					a.Allow(keys[i%len(keys)])
					i++
				}
			})
		}
		wg.Wait()
		return time.Since(start)
	}
	run(int64(g))
	errs0 := errorsOf(a)
	before := readServerStats(b, stats)
	sent0, trips0 := hook.sent(), hook.trips.Load()
	b.ReportAllocs()
	b.ResetTimer()
	elapsed := run(int64(b.N))
	b.StopTimer()
	after := readServerStats(b, stats)
	sent := hook.sent()
	var cmds int64
	for name, n := range sent {
		sent[name] = n - sent0[name]
		cmds += sent[name]
	}
	n := float64(b.N)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "decisions/s")
	b.ReportMetric(serverMicros(before, after, sent)/n, "srv-us/op")
	b.ReportMetric((after.cpu-before.cpu)*1e6/n, "srvcpu-us/op")
	b.ReportMetric(float64(cmds)/n, "cmds/op")
	b.ReportMetric(float64(hook.trips.Load()-trips0)/n, "trips/op")
	if e := errorsOf(a) - errs0; e > 0 {
		b.ReportMetric(float64(e)/n, "errors/op")
	}
}

// errorsOf returns the failed decisions a library has counted so far.
func errorsOf(a allower) int64 {
	if e, ok := a.(errCounter); ok {
		return e.Errors()
	}
	return 0
}
