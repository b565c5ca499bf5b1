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

// window is the limits' window: one second, aligned to the epoch.
const window = time.Second

// report is what a child prints: per key and window, the attempts and
// admissions, and per key and sync-period bin the admissions (for the
// bound's a(T)), with the decisions' total time.
type report struct {
	Counts    map[string][2]int64 // "key/window" → attempts, admitted
	MaxPeriod int64               // the most admitted of one key in one SyncPeriod bin
	Decisions int64
	Nanos     int64
	Errors    int64
}

func runChild(c config) error {
	client := redis.NewClient(&redis.Options{Addr: c.redis, MaxRetries: -1, PoolSize: 4 * c.goroutines})
	defer client.Close()
	p := core.MustPolicy("measure", core.Limit{Name: "measure", Algorithm: core.FixedWindow{Quota: c.limit, Window: window}})
	var store core.Store
	var lf *localfirst.Store
	switch c.child {
	case "localfirst":
		s, err := localfirst.New(client, localfirst.Options{Nodes: c.procs, SyncPeriod: c.period, Buckets: 16, Track: c.track, SkipIdle: c.skipIdle})
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
	var decisions, nanos, errs atomic.Int64
	var wg sync.WaitGroup
	for g := 0; g < c.goroutines; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(os.Getpid()), uint64(g)))
			local := map[[2]int64]*rec{}
			localBins := map[[2]int64]int64{}
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
			mu.Unlock()
		}(g)
	}
	wg.Wait()
	stop()
	loop.Wait()
	rep := report{Counts: map[string][2]int64{}, Decisions: decisions.Load(), Nanos: nanos.Load(), Errors: errs.Load()}
	for k, v := range counts {
		rep.Counts[fmt.Sprintf("%d/%d", k[0], k[1])] = [2]int64{v.attempts, v.admitted}
	}
	for _, v := range bins {
		rep.MaxPeriod = max(rep.MaxPeriod, v)
	}
	return json.NewEncoder(os.Stdout).Encode(rep)
}
