// Command localfirst measures the local-first store (core/localfirst)
// against the exact Redis store (core/redisstore) on one Redis: several OS
// processes (the nodes) each run goroutines of load on 1 or many keys,
// steady or bursty, under a FixedWindow or a GCRA, and report what they
// tried and what was admitted per key and window (per key and short bin
// for the GCRA). The parent prints, per scenario and store: the units
// admitted, the ideal, the over-admission against the documented bound,
// Redis commands per second (INFO commandstats) and the mean time of a
// decision.
//
//	go run ./examples/localfirst                 # starts its own redis-server
//	go run ./examples/localfirst -redis 127.0.0.1:6379 -dur 5s -alg gcra
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
	pace       time.Duration
	algs       string // the parent's scenarios: "fixed", "gcra" or "all"
	child      string // store of a child process, "" in the parent
	keys       int
	load       string
	alg        string // "fixed" or "gcra"
	limit      int64  // per key: the FixedWindow's quota a second, or the GCRA's rate a second
	burst      int64  // the GCRA's burst
	start      int64  // Unix ns all children start at
}

func main() {
	var c config
	flag.StringVar(&c.redis, "redis", "", "Redis host:port (default: start a redis-server on a free port)")
	flag.IntVar(&c.procs, "procs", 4, "OS processes (nodes)")
	flag.IntVar(&c.goroutines, "goroutines", 64, "goroutines per process")
	flag.DurationVar(&c.dur, "dur", 3*time.Second, "load time per run")
	flag.DurationVar(&c.period, "period", 100*time.Millisecond, "local-first SyncPeriod")
	flag.DurationVar(&c.pace, "pace", 2*time.Millisecond, "steady load: each goroutine's wait between requests")
	flag.StringVar(&c.algs, "alg", "all", "scenarios: fixed, gcra or all")
	flag.StringVar(&c.child, "child", "", "internal: run as a node with this store")
	flag.IntVar(&c.keys, "keys", 1, "internal: keys")
	flag.StringVar(&c.load, "load", "steady", "internal: steady or bursty")
	flag.StringVar(&c.alg, "limitalg", "fixed", "internal: fixed or gcra")
	flag.Int64Var(&c.limit, "limit", 0, "internal: the limit per key and second")
	flag.Int64Var(&c.burst, "burst", 0, "internal: the GCRA's burst")
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
