// Command localfirst measures the local-first store (core/localfirst)
// against the exact Redis store (core/redisstore) on one Redis: several OS
// processes (the nodes) each run goroutines of load on 1 or many keys,
// steady or bursty, and report what they tried and what was admitted per
// key and window. The parent prints, per scenario and store: the units
// admitted, the ideal (per key and window, the least of the demand and the
// limit), the over-admission (units beyond the limit, summed over keys and
// windows, and its worst key-window against the documented bound), Redis
// commands per second (INFO commandstats) and the mean time of a decision.
//
//	go run ./examples/localfirst                 # starts its own redis-server
//	go run ./examples/localfirst -redis 127.0.0.1:6379 -dur 5s
//
// Short runs on a loaded machine give rough figures; compare the stores
// within one run.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"
)

type config struct {
	redis      string
	procs      int
	goroutines int
	dur        time.Duration
	period     time.Duration
	track      int
	skipIdle   bool
	pace       time.Duration
	child      string // store of a child process, "" in the parent
	keys       int
	load       string
	limit      int64
	start      int64 // Unix ns all children start at
}

func main() {
	var c config
	flag.StringVar(&c.redis, "redis", "", "Redis host:port (default: start a redis-server on a free port)")
	flag.IntVar(&c.procs, "procs", 4, "OS processes (nodes)")
	flag.IntVar(&c.goroutines, "goroutines", 64, "goroutines per process")
	flag.DurationVar(&c.dur, "dur", 3*time.Second, "load time per run")
	flag.DurationVar(&c.period, "period", 100*time.Millisecond, "local-first SyncPeriod")
	flag.IntVar(&c.track, "track", 0, "local-first Track (0: its default)")
	flag.BoolVar(&c.skipIdle, "skipidle", false, "local-first SkipIdle")
	flag.DurationVar(&c.pace, "pace", 2*time.Millisecond, "steady load: each goroutine's wait between requests")
	flag.StringVar(&c.child, "child", "", "internal: run as a node with this store")
	flag.IntVar(&c.keys, "keys", 1, "internal: keys")
	flag.StringVar(&c.load, "load", "steady", "internal: steady or bursty")
	flag.Int64Var(&c.limit, "limit", 0, "internal: the limit per key and window")
	flag.Int64Var(&c.start, "start", 0, "internal: start instant")
	flag.Parse()
	var err error
	if c.child != "" {
		err = runChild(c)
	} else {
		err = runParent(c)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "localfirst:", err)
		os.Exit(1)
	}
}
