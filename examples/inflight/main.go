// Command inflight puts a concurrency limit (requests in flight per
// client IP) in front of a slow handler and shows what clients are told: 10
// parallel requests of one client against 3 slots, first refused beyond
// the limit (429 with Retry-After), then waiting in line for a slot; and a
// panicking handler that gives its slot back.
//
//	go run ./examples/inflight                        # slots in memory
//	go run ./examples/inflight -redis 127.0.0.1:6379  # slots in Redis, shared by a fleet
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/floodgate-go/floodgate/core/inflight"
	"github.com/floodgate-go/floodgate/core/inflight/redisinflight"
	"github.com/floodgate-go/floodgate/keyfunc"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/redis/go-redis/v9"
)

const (
	slots    = 3
	requests = 10
)

// slotLimiter is what the demo needs of a concurrency limiter: both
// inflight.Memory and redisinflight.Limiter are one.
type slotLimiter interface {
	middleware.ConcurrencyWaiter
}

// newLimiter returns slots in memory, or in the Redis at addr.
func newLimiter(addr string) (slotLimiter, func(), error) {
	if addr == "" {
		m, err := inflight.NewMemory(slots, inflight.MemoryOptions{})
		return m, func() {}, err
	}
	c := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true})
	// A Timeout of seconds, not the default 100 ms: the demo's answers
	// must not depend on how loaded the machine running it is.
	l, err := redisinflight.New(c, slots, redisinflight.Options{Prefix: "inflight-example:", Lease: time.Minute,
		Timeout: 10 * time.Second})
	if err == nil {
		// Redis answers, fast enough, runs the scripts (an ACL may forbid
		// them), and does not evict the leases (a warning otherwise).
		err = l.Check(context.Background())
	}
	if err != nil {
		c.Close()
		return nil, nil, fmt.Errorf("redis at %s: %w", addr, err)
	}
	return l, func() { _ = l.Close(); c.Close() }, nil
}

// concurrency is the limit of the demo, on lim: refusing beyond the
// slots, or waiting up to wait for one. Its key is the client IP (the
// default; behind a proxy, a keyfunc.ClientIP with the proxies' networks),
// something the client cannot choose: keyed by a header the client
// writes, a client sending a new value with each request would hold a
// new set of slots each time, with no limit at all.
func concurrency(lim slotLimiter, wait time.Duration) (*middleware.Concurrency, error) {
	return middleware.NewConcurrency(lim, middleware.ConcurrencyOptions{Wait: wait})
}

// clientRequest is a request of the demo's one client, from 192.0.2.1.
func clientRequest() *http.Request {
	return httptest.NewRequest(http.MethodGet, "/report", nil)
}

// burst sends n parallel requests of one client to h, whose handler
// blocks until release is closed once every request not let in has been
// answered, and returns how many got each status and the Retry-After of
// the refusals.
func burst(h http.Handler, n int, entered chan struct{}, release chan struct{}) (codes map[int]int, retryAfter string) {
	codes = map[int]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	answered := make(chan struct{}, n)
	for range n {
		wg.Go(func() {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, clientRequest())
			mu.Lock()
			codes[w.Code]++
			if w.Code == http.StatusTooManyRequests {
				retryAfter = w.Header().Get("Retry-After")
			}
			mu.Unlock()
			answered <- struct{}{}
		})
	}
	// Those let in hold their slot until every other request is
	// answered: the burst is decided while the slots are all held.
	for in, out := 0, 0; in+out < n; {
		select {
		case <-entered:
			in++
		case <-answered:
			out++
		}
	}
	close(release)
	wg.Wait()
	return codes, retryAfter
}

func run(w io.Writer, addr string) error {
	lim, closeLim, err := newLimiter(addr)
	if err != nil {
		return err
	}
	defer closeLim()

	// 1. Refused beyond the limit.
	var cur, peak atomic.Int64
	entered, release := make(chan struct{}, requests), make(chan struct{})
	slow := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n := cur.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		entered <- struct{}{}
		<-release
		cur.Add(-1)
		fmt.Fprintln(w, "report ready")
	})
	refuse, err := concurrency(lim, 0)
	if err != nil {
		return err
	}
	codes, retry := burst(refuse.Handler(slow), requests, entered, release)
	fmt.Fprintf(w, "%d slots, %d parallel requests, refusing: %d served (200), %d refused (429, Retry-After %s), at most %d at once\n",
		slots, requests, codes[200], codes[429], retry, peak.Load())

	// 2. Waiting in line instead.
	peak.Store(0)
	entered, release = make(chan struct{}, requests), make(chan struct{})
	close(release) // nobody blocks: each request runs as soon as it has its slot
	queue, err := concurrency(lim, time.Minute)
	if err != nil {
		return err
	}
	h := queue.Handler(slow)
	var wg sync.WaitGroup
	var ok atomic.Int64
	for range requests {
		wg.Go(func() {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, clientRequest())
			if rec.Code == http.StatusOK {
				ok.Add(1)
			}
		})
	}
	wg.Wait()
	fmt.Fprintf(w, "waiting up to a minute instead: %d of %d served, never more than %d at once: %v\n", ok.Load(), requests, slots, peak.Load() <= slots)

	// 3. A panicking handler gives its slot back.
	boom := refuse.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) }))
	for range slots + 1 {
		func() {
			defer func() { _ = recover() }()
			boom.ServeHTTP(httptest.NewRecorder(), clientRequest())
		}()
	}
	key, err := keyfunc.AppendClientIP(nil, clientRequest()) // the key the middleware counts it by
	if err != nil {
		return err
	}
	s, err := lim.Acquire(context.Background(), string(key))
	if errors.Is(err, inflight.ErrFull) {
		return errors.New("a panicking handler kept its slot")
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "after %d panicking requests every slot is free again\n", slots+1)
	return s.Release(context.Background())
}

func main() {
	addr := flag.String("redis", "", "keep the slots in the Redis at this address (host:port) instead of in memory")
	flag.Parse()
	if err := run(os.Stdout, *addr); err != nil {
		fmt.Fprintln(os.Stderr, "inflight:", err)
		os.Exit(1)
	}
}
