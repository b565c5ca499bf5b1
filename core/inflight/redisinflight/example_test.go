package redisinflight_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/floodgate-go/floodgate/core/inflight"
	"github.com/floodgate-go/floodgate/core/inflight/redisinflight"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/redis/go-redis/v9"
)

// At most 10 reports of each tenant in flight across the fleet; a process
// that dies holding slots gives them back within the 2-minute lease. (It
// needs a Redis at 127.0.0.1:6379, so it has no checked output.)
func Example() {
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379", ContextTimeoutEnabled: true})
	defer client.Close()
	lim, err := redisinflight.New(client, 10, redisinflight.Options{Lease: 2 * time.Minute})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	slot, err := lim.Acquire(ctx, "tenant-42")
	switch {
	case errors.Is(err, inflight.ErrFull):
		fmt.Println("busy: try again later")
		return
	case err != nil:
		panic(err) // FailClosed (the default): Redis unreachable
	}
	defer slot.Release(ctx)
	fmt.Println("running the report")
}

// With FailLocal, a process that cannot reach Redis grants its own share
// of the limit: here nothing listens on 127.0.0.1:1, and this process,
// one of 4, grants a quarter of 8 slots.
func Example_failLocal() {
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialerRetries: 1})
	defer client.Close()
	lim, err := redisinflight.New(client, 8, redisinflight.Options{FailureMode: redisstore.FailLocal, LocalShare: 0.25})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	for i := range 3 {
		_, err := lim.Acquire(ctx, "tenant-42")
		fmt.Println(i+1, err)
	}
	// Output:
	// 1 <nil>
	// 2 <nil>
	// 3 inflight: every slot of the key is in use
}
