package redisstore_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/redis/go-redis/v9"
)

// BenchmarkDecisions measures decisions per second on Redis with 1, 8 and
// 64 goroutines, on one hot key and on 10,000 keys, and the Redis commands
// each decision costs (INFO commandstats before and after). The policy
// admits everything, so that every decision reaches Redis;
// BenchmarkDeniedHotKey measures the deny cache.
func BenchmarkDecisions(b *testing.B) {
	pipelines := 0
	if v := os.Getenv("FG_BENCH_PIPELINES"); v != "" {
		pipelines, _ = strconv.Atoi(v)
	}
	srv := startRedis(b)
	c := srv.Client(b)
	for _, keys := range []int{1, 10000} {
		for _, g := range []int{1, 8, 64} {
			b.Run(fmt.Sprintf("keys=%d/goroutines=%d", keys, g), func(b *testing.B) {
				s := newStore(b, c, redisstore.Options{Timeout: 5 * time.Second, Pipelines: pipelines})
				l, err := core.NewLimiter(core.MustPolicy("bench", core.Limit{Name: "b", Algorithm: core.GCRA{Rate: core.PerSecond(1e6), Burst: 1e9}}), core.WithStore(s))
				if err != nil {
					b.Fatal(err)
				}
				run(b, c, l, keys, g)
			})
		}
	}
}

// BenchmarkDeniedHotKey: 64 goroutines on one key that is denied for an
// hour: the deny cache answers without Redis.
func BenchmarkDeniedHotKey(b *testing.B) {
	srv := startRedis(b)
	c := srv.Client(b)
	s := newStore(b, c, redisstore.Options{Timeout: 5 * time.Second})
	l, err := core.NewLimiter(core.MustPolicy("denied", core.Limit{Name: "d", Algorithm: core.GCRA{Rate: core.PerHour(1)}}), core.WithStore(s))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := l.Allow(context.Background(), "k0"); err != nil {
		b.Fatal(err)
	}
	run(b, c, l, 1, 64)
}

func run(b *testing.B, c interface {
	Info(context.Context, ...string) *redisStringCmd
}, l *core.Limiter, keys, goroutines int) {
	b.Helper()
	names := make([]string, keys)
	for i := range names {
		names[i] = fmt.Sprint("k", i)
	}
	before := evals(b, c)
	usecBefore := scriptUsec(b, c.(redis.UniversalClient))
	cpuBefore := redisCPU(b, c.(redis.UniversalClient))
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	per := (b.N + goroutines - 1) / goroutines
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			var r core.Result
			for i := range per {
				if err := l.Take(ctx, names[(g*per+i)%keys], 1, &r); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	n := float64(per * goroutines)
	b.ReportMetric(n/elapsed.Seconds(), "decisions/s")
	b.ReportMetric(float64(evals(b, c)-before)/n, "cmds/decision")
	b.ReportMetric((scriptUsec(b, c.(redis.UniversalClient))-usecBefore)/n, "redis-µs/decision")
	b.ReportMetric((redisCPU(b, c.(redis.UniversalClient))-cpuBefore)/elapsed.Seconds(), "redis-cores")
}

// redisCPU returns the CPU seconds redis-server has used (INFO cpu, user
// and system, all threads).
func redisCPU(b *testing.B, c redis.UniversalClient) float64 {
	b.Helper()
	info, err := c.Info(context.Background(), "cpu").Result()
	if err != nil {
		b.Fatal(err)
	}
	var total float64
	for _, line := range strings.Split(info, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if ok && (k == "used_cpu_sys" || k == "used_cpu_user") {
			f, _ := strconv.ParseFloat(v, 64)
			total += f
		}
	}
	return total
}

// scriptUsec returns the µs Redis has spent in script calls so far (INFO
// commandstats: evalsha, eval, fcall).
func scriptUsec(b *testing.B, c redis.UniversalClient) float64 {
	b.Helper()
	info, err := c.Info(context.Background(), "commandstats").Result()
	if err != nil {
		b.Fatal(err)
	}
	var total float64
	for _, line := range strings.Split(info, "\n") {
		line = strings.TrimSpace(line)
		for _, cmd := range []string{"evalsha", "eval", "fcall"} {
			if !strings.HasPrefix(line, "cmdstat_"+cmd+":") {
				continue
			}
			for _, f := range strings.Split(line[strings.IndexByte(line, ':')+1:], ",") {
				if v, ok := strings.CutPrefix(f, "usec="); ok {
					u, _ := strconv.ParseFloat(v, 64)
					total += u
				}
			}
		}
	}
	return total
}

type redisStringCmd = redis.StringCmd

// evals returns the script calls (EVALSHA, EVAL, FCALL) Redis has served.
func evals(b *testing.B, c interface {
	Info(context.Context, ...string) *redisStringCmd
}) int64 {
	uc := c.(redis.UniversalClient)
	return commands(b, uc, "evalsha") + commands(b, uc, "eval") + commands(b, uc, "fcall")
}
