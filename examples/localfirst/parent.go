package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// scenario is one row group: keys, load and the per-key limit per second.
type scenario struct {
	keys  int
	load  string
	limit int64
}

var scenarios = []scenario{
	{1, "steady", 2000},
	// A hot key under its limit: every decision of the exact store goes
	// to Redis (no denial to cache), the regime local-first is for.
	{1, "steady", 1 << 40},
	{1, "bursty", 2000},
	{10000, "steady", 8},
	{10000, "bursty", 8},
}

// row is one store's figures in one scenario.
type row struct {
	sc                        scenario
	store                     string
	attempts, admitted, ideal int64
	over, worst, bound        int64
	scripts, cmds, cpu        float64 // per second: script calls, every command (scripts' own calls too), Redis CPU seconds
	nsop, decisions, perK     float64 // mean decision time; decisions per second of load; commands per 1,000 decisions
	errors                    int64
}

func runParent(c config) error {
	if c.redis == "" {
		addr, stop, err := startRedis()
		if err != nil {
			return err
		}
		defer stop()
		c.redis = addr
	}
	client := redis.NewClient(&redis.Options{Addr: c.redis})
	defer client.Close()
	ctx := context.Background()
	var rows []row
	for _, sc := range scenarios {
		for _, store := range []string{"memory", "localfirst", "exact"} {
			r, err := run(ctx, c, client, sc, store)
			if err != nil {
				return fmt.Errorf("%d keys %s %s: %w", sc.keys, sc.load, store, err)
			}
			rows = append(rows, r)
			fmt.Fprintf(os.Stderr, "done: %d keys, %s, %s\n", sc.keys, sc.load, store)
		}
	}
	fmt.Printf("%d processes × %d goroutines on one Redis, %v per run, FixedWindow per key per 1 s, SyncPeriod %v, Track %d (0: default), SkipIdle %v\n\n", c.procs, c.goroutines, c.dur, c.period, c.track, c.skipIdle)
	fmt.Println("| keys | limit/s | load | store | attempts | admitted | ideal | admitted/ideal | over-admitted (Σ) | worst key-window: admitted − limit | bound | decisions/s | script calls/s | Redis commands/s (scripts' included) | commands per 1,000 decisions | Redis CPU % | decision ns (mean, loaded) | errors |")
	fmt.Println("|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		bound := "—"
		if r.store == "localfirst" {
			bound = fmt.Sprint(r.bound)
		}
		limit := fmt.Sprint(r.sc.limit)
		if r.sc.limit >= 1<<40 {
			limit = "2^40"
		}
		fmt.Printf("| %d | %s | %s | %s | %d | %d | %d | %.3f | %d | %d | %s | %.0f | %.0f | %.0f | %.1f | %.0f | %.0f | %d |\n",
			r.sc.keys, limit, r.sc.load, r.store, r.attempts, r.admitted, r.ideal, float64(r.admitted)/float64(max(r.ideal, 1)),
			r.over, r.worst, bound, r.decisions, r.scripts, r.cmds, r.perK, 100*r.cpu, r.nsop, r.errors)
	}
	return nil
}

// run runs one store in one scenario: procs children, then the sums.
func run(ctx context.Context, c config, client *redis.Client, sc scenario, store string) (row, error) {
	if err := client.FlushAll(ctx).Err(); err != nil {
		return row{}, err
	}
	if err := client.ConfigResetStat(ctx).Err(); err != nil {
		return row{}, err
	}
	cpu0, err := redisCPU(ctx, client)
	if err != nil {
		return row{}, err
	}
	begin := time.Now()
	exe, err := os.Executable()
	if err != nil {
		return row{}, err
	}
	// Start on a whole second, a second from now: the processes' windows
	// are aligned and all of them are loaded.
	start := time.Now().Add(1500 * time.Millisecond).Truncate(time.Second)
	reps := make([]report, c.procs)
	errs := make([]error, c.procs)
	var wg sync.WaitGroup
	for i := 0; i < c.procs; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cmd := exec.CommandContext(ctx, exe, "-child", store, "-redis", c.redis, "-procs", fmt.Sprint(c.procs),
				"-goroutines", fmt.Sprint(c.goroutines), "-dur", c.dur.String(), "-period", c.period.String(), "-track", fmt.Sprint(c.track), fmt.Sprintf("-skipidle=%v", c.skipIdle),
				"-pace", c.pace.String(), "-keys", fmt.Sprint(sc.keys), "-load", sc.load,
				"-limit", fmt.Sprint(sc.limit), "-start", fmt.Sprint(start.UnixNano()))
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, os.Stderr
			if errs[i] = cmd.Run(); errs[i] == nil {
				errs[i] = json.Unmarshal(out.Bytes(), &reps[i])
			}
		}(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return row{}, err
		}
	}
	scripts, calls, err := commandCalls(ctx, client)
	if err != nil {
		return row{}, err
	}
	cpu1, err := redisCPU(ctx, client)
	if err != nil {
		return row{}, err
	}
	secs := time.Since(begin).Seconds()
	r := row{sc: sc, store: store, scripts: float64(scripts) / secs, cmds: float64(calls) / secs, cpu: (cpu1 - cpu0) / secs}
	// Per key and whole window inside the run: attempts and admissions
	// summed over the processes.
	first, last := start.UnixNano()/int64(window), start.Add(c.dur).UnixNano()/int64(window)-1
	sum := map[string][2]int64{}
	var decisions, nanos, maxPeriod int64
	for _, rep := range reps {
		for k, v := range rep.Counts {
			s := sum[k]
			sum[k] = [2]int64{s[0] + v[0], s[1] + v[1]}
		}
		decisions += rep.Decisions
		nanos += rep.Nanos
		r.errors += rep.Errors
		maxPeriod = max(maxPeriod, rep.MaxPeriod)
	}
	for k, v := range sum {
		w, _ := strconv.ParseInt(k[strings.IndexByte(k, '/')+1:], 10, 64)
		if w < first || w > last {
			continue
		}
		r.attempts += v[0]
		r.admitted += v[1]
		r.ideal += min(v[0], sc.limit)
		if o := v[1] - sc.limit; o > 0 {
			r.over += o
			r.worst = max(r.worst, o)
		}
	}
	// The bound on one key-window's over-admission: (N − 1)·a(P + δ),
	// with a(P + δ) ≤ the most one node admitted of a key in two
	// sync-period bins, and never more than (N − 1)·limit.
	r.bound = min(int64(c.procs-1)*2*maxPeriod, int64(c.procs-1)*sc.limit)
	r.nsop = float64(nanos) / float64(max(decisions, 1))
	r.decisions = float64(decisions) / c.dur.Seconds()
	r.perK = 1000 * float64(calls) / float64(max(decisions, 1))
	return r, nil
}

// redisCPU returns the CPU seconds Redis used so far (INFO cpu).
func redisCPU(ctx context.Context, client *redis.Client) (float64, error) {
	info, err := client.Info(ctx, "cpu").Result()
	if err != nil {
		return 0, err
	}
	var total float64
	for _, line := range strings.Split(info, "\n") {
		line = strings.TrimSpace(line)
		for _, f := range []string{"used_cpu_sys:", "used_cpu_user:"} {
			if v, ok := strings.CutPrefix(line, f); ok {
				x, err := strconv.ParseFloat(v, 64)
				if err != nil {
					return 0, err
				}
				total += x
			}
		}
	}
	return total, nil
}

// commandCalls returns the script calls (EVALSHA, EVAL, FCALL) and the calls of
// every command (the scripts' own calls included) in INFO commandstats,
// but for the measurement's own INFO, CONFIG and FLUSHALL.
func commandCalls(ctx context.Context, client *redis.Client) (scripts, total int64, err error) {
	info, err := client.Info(ctx, "commandstats").Result()
	if err != nil {
		return 0, 0, err
	}
	sc := bufio.NewScanner(strings.NewReader(info))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "cmdstat_") || strings.HasPrefix(line, "cmdstat_info") || strings.HasPrefix(line, "cmdstat_config") || strings.HasPrefix(line, "cmdstat_flushall") {
			continue
		}
		i := strings.Index(line, "calls=")
		if i < 0 {
			continue
		}
		v := line[i+len("calls="):]
		if j := strings.IndexByte(v, ','); j >= 0 {
			v = v[:j]
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, 0, err
		}
		total += n
		if strings.HasPrefix(line, "cmdstat_evalsha:") || strings.HasPrefix(line, "cmdstat_eval:") || strings.HasPrefix(line, "cmdstat_fcall:") {
			scripts += n
		}
	}
	return scripts, total, sc.Err()
}

// startRedis starts a redis-server on a free loopback port, without
// persistence, and returns its address and a function that kills it.
func startRedis() (string, func(), error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command("redis-server", "--port", fmt.Sprint(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	client := redis.NewClient(&redis.Options{Addr: addr})
	defer client.Close()
	for i := 0; i < 300; i++ {
		if client.Ping(context.Background()).Err() == nil {
			return addr, stop, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	stop()
	return "", nil, fmt.Errorf("redis-server on %s did not answer", addr)
}
