package benchmarks

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
	"github.com/throttled/throttled/v2/store/goredisstore.v9"
	ulule "github.com/ulule/limiter/v3"
	ululeredis "github.com/ulule/limiter/v3/drivers/store/redis"
)

// A local redis-server on a free loopback port, started by the first Redis
// benchmark and stopped (by PID) when the tests end.
var redisSrv struct {
	once sync.Once
	cmd  *exec.Cmd
	addr string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	stopRedis()
	os.Exit(code)
}

func freeLoopbackPort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func startRedis() {
	path, err := exec.LookPath("redis-server")
	if err != nil {
		redisSrv.err = fmt.Errorf("redis-server not found on PATH: Redis scenarios skipped")
		return
	}
	port, err := freeLoopbackPort()
	if err != nil {
		redisSrv.err = err
		return
	}
	cmd := exec.Command(path, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--protected-mode", "yes", "--loglevel", "warning")
	if err := cmd.Start(); err != nil {
		redisSrv.err = err
		return
	}
	redisSrv.cmd = cmd
	redisSrv.addr = "127.0.0.1:" + strconv.Itoa(port)
	c := redis.NewClient(&redis.Options{Addr: redisSrv.addr})
	defer c.Close()
	for deadline := time.Now().Add(5 * time.Second); ; {
		if c.Ping(context.Background()).Err() == nil {
			return
		}
		if time.Now().After(deadline) {
			redisSrv.err = fmt.Errorf("redis-server on %s did not answer PING", redisSrv.addr)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func stopRedis() {
	if redisSrv.cmd != nil && redisSrv.cmd.Process != nil {
		_ = redisSrv.cmd.Process.Kill() // by PID: the process this binary started
		_ = redisSrv.cmd.Wait()
	}
}

// countHook counts what a client sends: commands, and round trips (one per
// command or pipeline).
type countHook struct{ cmds, trips atomic.Int64 }

func (h *countHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *countHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.cmds.Add(1)
		h.trips.Add(1)
		return next(ctx, cmd)
	}
}

func (h *countHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.cmds.Add(int64(len(cmds)))
		h.trips.Add(1)
		return next(ctx, cmds)
	}
}

// redisClient returns a client of the local server (skipping b without
// one), with a pool large enough for 64 goroutines, on a flushed database.
// It bounds its round trips by the context (ContextTimeoutEnabled), as
// floodgate's examples configure go-redis: the peers pass no deadline, so
// it changes nothing for them, and floodgate then decides a request made
// alone on the caller's goroutine (see core/redisstore).
func redisClient(b *testing.B) (*redis.Client, *countHook) {
	b.Helper()
	redisSrv.once.Do(startRedis)
	if redisSrv.err != nil {
		b.Skip(redisSrv.err)
	}
	c := redis.NewClient(&redis.Options{Addr: redisSrv.addr, PoolSize: 64, MinIdleConns: 64, ContextTimeoutEnabled: true})
	b.Cleanup(func() { c.Close() })
	if err := c.FlushDB(b.Context()).Err(); err != nil {
		b.Fatal(err)
	}
	h := new(countHook)
	c.AddHook(h)
	return c, h
}

// commandsProcessed reads total_commands_processed from INFO stats.
func commandsProcessed(b *testing.B, c *redis.Client) int64 {
	s, err := c.Info(context.Background(), "stats").Result()
	if err != nil {
		b.Fatal(err)
	}
	for line := range strings.SplitSeq(s, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "total_commands_processed:"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
	b.Fatal("no total_commands_processed in INFO stats")
	return 0
}

// redisLibrary builds an allower over a Redis client for a spec.
type redisLibrary struct {
	name string
	new  func(b *testing.B, c *redis.Client, s spec) allower
}

// redisLibraries are the peers with a Redis store; floodgate's joins them
// from redis_floodgate_test.go (build tag floodgate_redis).
var redisLibraries = []redisLibrary{
	{"ulule", func(b *testing.B, c *redis.Client, s spec) allower {
		st, err := ululeredis.NewStoreWithOptions(c, ulule.StoreOptions{Prefix: "ulule", MaxRetry: 3})
		must(err)
		return &ululeAllower{l: ulule.New(st, ulule.Rate{Period: s.window(), Limit: s.burst})}
	}},
	{"throttled", func(b *testing.B, c *redis.Client, s spec) allower {
		st, err := goredisstore.NewCtx(c, "throttled:")
		must(err)
		return newThrottled(st, s)
	}},
	{"redis_rate", func(b *testing.B, c *redis.Client, s spec) allower {
		return &redisRateAllower{l: redis_rate.NewLimiter(c), limit: redis_rate.Limit{
			Rate: int(s.n), Period: s.period, Burst: int(s.burst)}}
	}},
}

// go-redis/redis_rate: Limiter.Allow (GCRA in one Lua script).
type redisRateAllower struct {
	errs
	l     *redis_rate.Limiter
	limit redis_rate.Limit
}

func (r *redisRateAllower) Allow(key string) bool {
	res, err := r.l.Allow(context.Background(), key, r.limit)
	if err != nil {
		r.n.Add(1)
		return false
	}
	return res.Allowed > 0
}

const redisKeys = 1024

// BenchmarkRedis decides on the allow path against a local redis-server from
// exactly 1, 8 and 64 goroutines (b.N decisions split between them), each
// goroutine cycling over its own share of 1,024 keys. It reports
// decisions/s and the Redis commands processed per decision (from INFO
// stats; includes script loads and retries).
func BenchmarkRedis(b *testing.B) {
	keys := make([]string, redisKeys)
	for i := range keys {
		keys[i] = "client-" + strconv.Itoa(i)
	}
	for _, g := range []int{1, 8, 64} {
		for _, lib := range redisLibraries {
			b.Run(fmt.Sprintf("allow-g%d/%s", g, lib.name), func(b *testing.B) {
				c, hook := redisClient(b)
				a := lib.new(b, c, specAllow)
				a.Allow(keys[0]) // loads scripts, opens a connection
				before := commandsProcessed(b, c)
				cmds0, trips0 := hook.cmds.Load(), hook.trips.Load()
				var done atomic.Int64
				var wg sync.WaitGroup
				b.ResetTimer()
				start := time.Now()
				for w := range g {
					wg.Go(func() {
						i := w * (redisKeys / g)
						for done.Add(1) <= int64(b.N) {
							a.Allow(keys[i%redisKeys])
							i++
						}
					})
				}
				wg.Wait()
				elapsed := time.Since(start)
				b.StopTimer()
				cmds, trips := hook.cmds.Load()-cmds0, hook.trips.Load()-trips0
				after := commandsProcessed(b, c)
				n := float64(b.N)
				b.ReportMetric(float64(cmds)/n, "cmds/op")
				b.ReportMetric(float64(trips)/n, "trips/op")
				b.ReportMetric(float64(after-before-1)/n, "srvcmds/op")
				b.ReportMetric(float64(b.N)/elapsed.Seconds(), "decisions/s")
				reportErrors(b, a)
			})
		}
	}
}
