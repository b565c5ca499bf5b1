package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/localfirst"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/redis/go-redis/v9"
)

// window is the FixedWindow's window: one second, aligned to the epoch.
const window = time.Second

// timeout is the local-first store's Timeout: a lease lives 2·period +
// timeout.
const timeout = 500 * time.Millisecond

// report is what a child prints: per key and window, the attempts and
// admissions; per key and sync-period bin the most admitted (for the
// windows' bound, a(T)); for a GCRA, per key and bin (binOf) the attempts
// and admissions; and the decisions' total time.
type report struct {
	Counts    map[string][2]int64 // "key/window" → attempts, admitted
	MaxPeriod int64               // the most admitted of one key in one SyncPeriod bin
	Bins      map[string][2]int64 // GCRA: "key/bin" → attempts, admitted
	Decisions int64
	Nanos     int64
	Errors    int64
}

// binOf is the bin a GCRA's admissions are counted in: a tenth of the
// period for one key, the period for many.
func binOf(c config) time.Duration {
	if c.keys == 1 {
		return c.period / 10
	}
	return c.period
}

func runChild(c config) error {
	client := redis.NewClient(&redis.Options{Addr: c.redis, MaxRetries: -1, PoolSize: 4 * c.goroutines})
	defer client.Close()
	var alg core.Algorithm = core.FixedWindow{Quota: c.limit, Window: window}
	if c.alg == "gcra" {
		alg = core.GCRA{Rate: core.PerSecond(c.limit), Burst: c.burst}
	}
	p := core.MustPolicy("measure", core.Limit{Name: "measure", Algorithm: alg})
	var store core.Store
	var lf *localfirst.Store
	switch c.child {
	case "localfirst":
		s, err := localfirst.New(client, localfirst.Options{Nodes: c.procs, SyncPeriod: c.period, Timeout: timeout})
		if err != nil {
			return err
		}
		lf, store = s, s
	case "memory":
		s, err := core.NewMemoryStore(core.MemoryOptions{})
		if err != nil {
			return err
		}
		store = s
	case "exact":
		s, err := redisstore.New(client, redisstore.Options{CallerClock: true, Timeout: time.Second})
		if err != nil {
			return err
		}
		defer s.Close()
		store = s
	default:
		return fmt.Errorf("unknown store %q", c.child)
	}
	l, err := core.NewLimiter(p, core.WithStore(store))
	if err != nil {
		return err
	}
	ctx, stop := context.WithCancel(context.Background())
	var loop sync.WaitGroup
	if lf != nil {
		loop.Add(1)
		go func() { defer loop.Done(); lf.Run(ctx) }()
	}
	time.Sleep(time.Until(time.Unix(0, c.start)))
	end := time.Unix(0, c.start).Add(c.dur)
	type rec struct{ attempts, admitted int64 }
	var mu sync.Mutex
	counts := map[[2]int64]*rec{}
	bins := map[[2]int64]int64{}
	gbins := map[[2]int64][2]int64{}
	bin := int64(binOf(c))
	var decisions, nanos, errs atomic.Int64
	var wg sync.WaitGroup
	for g := 0; g < c.goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(os.Getpid()), uint64(g)))
			local := map[[2]int64]*rec{}
			localBins := map[[2]int64]int64{}
			localG := map[[2]int64][2]int64{}
			one := func() {
				k := int64(rng.IntN(c.keys))
				t0 := time.Now()
				r, err := l.Allow(context.Background(), fmt.Sprint("key-", k))
				d := time.Since(t0)
				decisions.Add(1)
				nanos.Add(int64(d))
				if err != nil {
					errs.Add(1)
					return
				}
				at := r.At().UnixNano() // the decision's own instant
				w := at / int64(window)
				if c.alg == "gcra" {
					g := localG[[2]int64{k, at / bin}]
					g[0]++
					if r.Allowed {
						g[1]++
					}
					localG[[2]int64{k, at / bin}] = g
				}
				e := local[[2]int64{k, w}]
				if e == nil {
					e = &rec{}
					local[[2]int64{k, w}] = e
				}
				e.attempts++
				if r.Allowed {
					e.admitted++
					localBins[[2]int64{k, at / int64(c.period)}]++
				}
			}
			for time.Now().Before(end) {
				if c.load == "bursty" {
					// Every node bursts at the same instants: 50 ms after
					// each window starts, 50 requests per goroutine.
					now := time.Now()
					next := now.Truncate(window).Add(50 * time.Millisecond)
					if !next.After(now) {
						next = next.Add(window)
					}
					if next.After(end) {
						break
					}
					time.Sleep(time.Until(next))
					for i := 0; i < 50; i++ {
						one()
					}
					continue
				}
				one()
				time.Sleep(c.pace)
			}
			mu.Lock()
			for k, v := range local {
				e := counts[k]
				if e == nil {
					e = &rec{}
					counts[k] = e
				}
				e.attempts += v.attempts
				e.admitted += v.admitted
			}
			for k, v := range localBins {
				bins[k] += v
			}
			for k, v := range localG {
				g := gbins[k]
				gbins[k] = [2]int64{g[0] + v[0], g[1] + v[1]}
			}
			mu.Unlock()
		}(g)
	}
	wg.Wait()
	stop()
	loop.Wait()
	rep := report{Counts: map[string][2]int64{}, Bins: map[string][2]int64{}, Decisions: decisions.Load(), Nanos: nanos.Load(), Errors: errs.Load()}
	for k, v := range gbins {
		rep.Bins[fmt.Sprintf("%d/%d", k[0], k[1])] = v
	}
	for k, v := range counts {
		rep.Counts[fmt.Sprintf("%d/%d", k[0], k[1])] = [2]int64{v.attempts, v.admitted}
	}
	for _, v := range bins {
		rep.MaxPeriod = max(rep.MaxPeriod, v)
	}
	return json.NewEncoder(os.Stdout).Encode(rep)
}
