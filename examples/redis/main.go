// Command redis limits with the Redis store: every process sharing the
// Redis enforces one limit together. It sends a few requests through an
// API limit (GCRA, 5 per hour, burst 3) and a login lockout (Backoff, 2
// free failures, then locks of 1 min, 2 min, ...) and prints what each
// was told. The limits are reset first, so each run prints the same.
//
//	redis-server --port 6379 --save "" &
//	go run ./examples/redis -addr 127.0.0.1:6379
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/redis/go-redis/v9"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "Redis address, host:port")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := run(ctx, *addr, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "redis:", err)
		os.Exit(1)
	}
}

// timeout bounds each command (the client's ReadTimeout) and each decision
// (the store's Timeout). The tests raise it to a bound no loaded machine
// reaches.
var timeout = time.Second

// run prints the decisions of the demo on the Redis at addr.
func run(ctx context.Context, addr string, w io.Writer) error {
	// MaxRetries -1: no command sent again after a lost reply (a take
	// would count twice); the store has its own failure handling.
	// DialerRetries 1: one dial per attempt, as the store's breaker paces
	// the attempts (go-redis's default, 5 dials 100 ms apart, made the
	// start-up check against a Redis that is down wait 0.4 s to say so).
	client := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true, ReadTimeout: timeout, MaxRetries: -1, DialerRetries: 1})
	defer client.Close()
	store, err := redisstore.New(client, redisstore.Options{Prefix: "floodgate-example:", Timeout: timeout})
	if err != nil {
		return err
	}
	defer store.Close()

	api, err := core.NewLimiter(core.MustPolicy("api", core.Limit{Name: "api", Algorithm: core.GCRA{Rate: core.PerHour(5), Burst: 3}}), core.WithStore(store))
	if err != nil {
		return err
	}
	login, err := core.NewLimiter(core.MustPolicy("login", core.Limit{Name: "login", Algorithm: core.Backoff{Free: 2, Window: time.Hour, Base: time.Minute, Max: time.Hour}}), core.WithStore(store))
	if err != nil {
		return err
	}
	// The start-up check, once the limiters are bound: Redis answers, its
	// round trip is below the store's Timeout, the store's functions are
	// loaded, and a maxmemory-policy that would evict limits is logged.
	if err := store.Check(ctx); err != nil {
		return fmt.Errorf("no Redis at %s: %w", addr, err)
	}
	for _, d := range []struct {
		title, key string
		l          *core.Limiter
		n          int
	}{
		{"API: 5 per hour, burst 3 (GCRA)", "api-key-1", api, 5},
		{"Login failures: 2 free, then locked 1m, 2m, 4m... (Backoff)", "alice", login, 5},
	} {
		if err := d.l.Reset(ctx, d.key); err != nil {
			return err
		}
		fmt.Fprintf(w, "%s, key %q:\n", d.title, d.key)
		for i := range d.n {
			r, err := d.l.Allow(ctx, d.key)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "  request %d: %s\n", i+1, describe(r))
		}
	}
	return nil
}

// describe is one decision in words; waits are rounded to the second (Redis
// TIME moves on between requests).
func describe(r core.Result) string {
	if r.Allowed {
		return fmt.Sprintf("allowed, %d remaining", r.Remaining)
	}
	return fmt.Sprintf("denied, retry in %v", r.RetryAfter.Round(time.Second))
}
