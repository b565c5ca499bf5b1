package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// scenario is one row group: the algorithm, keys, load and the per-key
// limit a second (a FixedWindow's quota, a GCRA's rate, with its burst).
type scenario struct {
	alg          string
	keys         int
	load         string
	limit, burst int64
}

var scenarios = []scenario{
	{"fixed", 1, "steady", 2000, 0},
	// A hot key under its limit: every decision of the exact store goes
	// to Redis (no denial to cache), the regime local-first is for.
	{"fixed", 1, "steady", 1 << 40, 0},
	{"fixed", 1, "bursty", 2000, 0},
	{"fixed", 10000, "steady", 8, 0},
	{"fixed", 10000, "bursty", 8, 0},
	{"gcra", 1, "steady", 2000, 200},
	{"gcra", 1, "steady", 1 << 30, 1 << 30},
	{"gcra", 1, "bursty", 2000, 200},
	{"gcra", 10000, "steady", 8, 8},
	{"gcra", 10000, "bursty", 8, 8},
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
		if c.algs != "all" && c.algs != sc.alg {
			continue
		}
		for _, store := range []string{"memory", "localfirst", "exact"} {
			r, err := run(ctx, c, client, sc, store)
			if err != nil {
				return fmt.Errorf("%d keys %s %s: %w", sc.keys, sc.load, store, err)
			}
			rows = append(rows, r)
			fmt.Fprintf(os.Stderr, "done: %d keys, %s, %s\n", sc.keys, sc.load, store)
		}
	}
	fmt.Printf("%d processes × %d goroutines on one Redis, %v per run, per key a FixedWindow of 1 s or a GCRA, SyncPeriod %v, Timeout %v\n\n", c.procs, c.goroutines, c.dur, c.period, timeout)
	fmt.Println("| limit | keys | load | store | attempts | admitted | ideal | admitted/ideal | over-admitted (Σ) | worst over-admission | bound | decisions/s | script calls/s | Redis commands/s (scripts' included) | commands per 1,000 decisions | Redis CPU % | decision ns (mean, loaded) | errors |")
	fmt.Println("|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		bound := "—"
		if r.store == "localfirst" {
			bound = fmt.Sprint(r.bound)
		}
		fmt.Printf("| %s | %d | %s | %s | %d | %d | %d | %.3f | %d | %d | %s | %.0f | %.0f | %.0f | %.1f | %.0f | %.0f | %d |\n",
			r.sc.name(), r.sc.keys, r.sc.load, r.store, r.attempts, r.admitted, r.ideal, float64(r.admitted)/float64(max(r.ideal, 1)),
			r.over, r.worst, bound, r.decisions, r.scripts, r.cmds, r.perK, 100*r.cpu, r.nsop, r.errors)
	}
	return nil
}

// name names sc's limit: "2000/s window", "GCRA 2000/s burst 200".
func (sc scenario) name() string {
	n := func(v int64) string {
		for _, p := range []int{40, 30} {
			if v == 1<<p {
				return fmt.Sprintf("2^%d", p)
			}
		}
		return fmt.Sprint(v)
	}
	if sc.alg == "gcra" {
		return fmt.Sprintf("GCRA %s/s burst %s", n(sc.limit), n(sc.burst))
	}
	return fmt.Sprintf("%s/s window", n(sc.limit))
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
				"-goroutines", fmt.Sprint(c.goroutines), "-dur", c.dur.String(), "-period", c.period.String(),
				"-pace", c.pace.String(), "-keys", fmt.Sprint(sc.keys), "-load", sc.load, "-limitalg", sc.alg,
				"-limit", fmt.Sprint(sc.limit), "-burst", fmt.Sprint(sc.burst), "-start", fmt.Sprint(start.UnixNano()))
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
	var decisions, nanos, maxPeriod int64
	for _, rep := range reps {
		decisions += rep.Decisions
		nanos += rep.Nanos
		r.errors += rep.Errors
		maxPeriod = max(maxPeriod, rep.MaxPeriod)
	}
	if sc.alg == "gcra" {
		gcraAdmissions(&r, c, sc, reps, start)
	} else {
		windowAdmissions(&r, c, sc, reps, start, maxPeriod)
	}
	r.nsop = float64(nanos) / float64(max(decisions, 1))
	r.decisions = float64(decisions) / c.dur.Seconds()
	r.perK = 1000 * float64(calls) / float64(max(decisions, 1))
	return r, nil
}

// windowAdmissions sums, per key and whole window inside the run, the
// attempts and admissions of every process into r, with the
// over-admission (units beyond the limit in a key-window) and its bound,
// (N − 1)·a(P + δ), with a(P + δ) taken as twice the most one node
// admitted of a key in one SyncPeriod bin, and never more than
// (N − 1)·limit.
func windowAdmissions(r *row, c config, sc scenario, reps []report, start time.Time, maxPeriod int64) {
	first, last := start.UnixNano()/int64(window), start.Add(c.dur).UnixNano()/int64(window)-1
	sum := map[string][2]int64{}
	for _, rep := range reps {
		for k, v := range rep.Counts {
			s := sum[k]
			sum[k] = [2]int64{s[0] + v[0], s[1] + v[1]}
		}
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
	r.bound = min(int64(c.procs-1)*2*maxPeriod, int64(c.procs-1)*sc.limit)
}

// gcraAdmissions sums the attempts and admissions of every process over
// the run into r. The ideal is, per key, what a GCRA admits of the
// attempts bin by bin (its tokens refilled at the rate, capped at the
// burst). The over-admission of a key is the most its admissions in any
// run of bins exceed burst + ⌈rate·T⌉ (T the bins' length: at least the
// time the admissions took, so this never overstates it), summed over keys
// (Σ) and at worst. Its bound is the package documentation's:
// ⌈rate·λ⌉ + N·a, with λ = 2·period + timeout (a lease's life) and
// a = ⌊burst/N⌋ + ⌈rate·2·period/N⌉ (what a node admits without a lease
// before a round pushes it).
func gcraAdmissions(r *row, c config, sc scenario, reps []report, start time.Time) {
	bin := int64(binOf(config{keys: sc.keys, period: c.period}))
	first, last := start.UnixNano()/bin, start.Add(c.dur).UnixNano()/bin-1
	per := map[string][][2]int64{}
	for _, rep := range reps {
		for k, v := range rep.Bins {
			i := strings.IndexByte(k, '/')
			b, _ := strconv.ParseInt(k[i+1:], 10, 64)
			if b < first || b > last {
				continue
			}
			key := k[:i]
			if per[key] == nil {
				per[key] = make([][2]int64, last-first+1)
			}
			per[key][b-first][0] += v[0]
			per[key][b-first][1] += v[1]
			r.attempts += v[0]
			r.admitted += v[1]
		}
	}
	rate, nodes := float64(sc.limit)/1e9, int64(c.procs)
	for _, bins := range per {
		tokens := float64(sc.burst)
		for _, b := range bins {
			tokens = min(float64(sc.burst), tokens+rate*float64(bin))
			ok := min(float64(b[0]), math.Floor(tokens))
			tokens -= ok
			r.ideal += int64(ok)
		}
		worst := int64(0)
		for i := range bins {
			sum := int64(0)
			for j := i; j < len(bins); j++ {
				sum += bins[j][1]
				worst = max(worst, sum-sc.burst-int64(math.Ceil(rate*float64(int64(j-i+1)*bin))))
			}
		}
		r.over += worst
		r.worst = max(r.worst, worst)
	}
	life := float64(2*c.period + timeout)
	r.bound = int64(math.Ceil(rate*life)) + nodes*(sc.burst/nodes+int64(math.Ceil(rate*float64(2*c.period)/float64(nodes))))
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
