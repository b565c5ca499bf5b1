package redisstore_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/redis/go-redis/v9"
)

// A limiter whose state is in Redis: every process running it shares the
// limit of 100 requests per minute per client. (It needs a Redis at
// 127.0.0.1:6379, so it has no checked output.)
func Example() {
	// MaxRetries -1: a command sent again after a lost reply may run twice
	// (a take then counts twice); the store has its own failure handling.
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379", ContextTimeoutEnabled: true, ReadTimeout: 100 * time.Millisecond, MaxRetries: -1})
	defer client.Close()
	store, err := redisstore.New(client, redisstore.Options{FailureMode: redisstore.FailLocal, LocalShare: 0.25})
	if err != nil {
		panic(err)
	}
	defer store.Close()
	l, err := core.NewLimiter(core.MustPolicy("api", core.Limit{Name: "api", Algorithm: core.GCRA{Rate: core.PerMinute(100)}}), core.WithStore(store))
	if err != nil {
		panic(err)
	}
	r, err := l.Allow(context.Background(), "client-1")
	if err != nil {
		panic(err) // FailClosed (the default) reports an unreachable Redis here
	}
	fmt.Println(r.Allowed, r.Remaining)
}

// With FailLocal, a process that cannot reach Redis decides on its own
// share of each limit until Redis is back: here nothing listens on
// 127.0.0.1:1, and this process, one of 4, grants a quarter of 8. (The
// window is anchored at the first request: a window on the clock's hours
// could end between two of these requests.)
func Example_failLocal() {
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialerRetries: 1})
	defer client.Close()
	store, err := redisstore.New(client, redisstore.Options{
		FailureMode: redisstore.FailLocal,
		LocalShare:  0.25,
		Failures:    1, // switch at the first fault (default: at once for a refused connection, after 3 missed deadlines)
		Logger:      slog.New(slog.NewTextHandler(io.Discard, nil)),
		OnSwitch:    func(s redisstore.Switch) { fmt.Println("down:", s.Down, "mode:", s.Mode) },
	})
	if err != nil {
		panic(err)
	}
	defer store.Close()
	l, err := core.NewLimiter(core.MustPolicy("api", core.Limit{Name: "api", Algorithm: core.FixedWindow{Quota: 8, Window: time.Hour, Anchored: true}}), core.WithStore(store))
	if err != nil {
		panic(err)
	}
	for range 3 {
		r, err := l.Allow(context.Background(), "client-1")
		if err != nil {
			panic(err)
		}
		fmt.Println("allowed:", r.Allowed, "remaining:", r.Remaining)
	}
	// Output:
	// down: true mode: local
	// allowed: true remaining: 1
	// allowed: true remaining: 0
	// allowed: false remaining: 0
}
