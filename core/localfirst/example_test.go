package localfirst_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/localfirst"
	"github.com/redis/go-redis/v9"
)

// A local-first limiter decides in memory and syncs through Redis every
// SyncPeriod (store.Run). Here nothing listens on the Redis address: the
// node keeps deciding, each of the 4 nodes granting its quarter of the
// 100 per hour until Redis answers.
func Example() {
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialerRetries: 1})
	defer client.Close()
	store, err := localfirst.New(client, localfirst.Options{Nodes: 4, SyncPeriod: 100 * time.Millisecond})
	if err != nil {
		panic(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go store.Run(ctx)

	p := core.MustPolicy("api", core.Limit{Name: "api", Algorithm: core.FixedWindow{Quota: 100, Window: time.Hour}})
	l, err := core.NewLimiter(p, core.WithStore(store))
	if err != nil {
		panic(err)
	}
	admitted := 0
	for i := 0; i < 100; i++ {
		if r, err := l.Allow(context.Background(), "client-1"); err == nil && r.Allowed {
			admitted++
		}
	}
	fmt.Println("admitted", admitted)
	fmt.Println("sync:", store.Sync(context.Background()) != nil)
	// Output:
	// admitted 25
	// sync: true
}

// A GCRA on the local-first store: a round leases each node units of the
// key's shared bucket. Here Redis never answers: each of the 4 nodes
// spends its share, a quarter of the burst of 20 (and of the rate).
func Example_gcra() {
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialerRetries: 1})
	defer client.Close()
	store, err := localfirst.New(client, localfirst.Options{Nodes: 4})
	if err != nil {
		panic(err)
	}
	p := core.MustPolicy("api", core.Limit{Name: "api", Algorithm: core.GCRA{Rate: core.PerMinute(100), Burst: 20}})
	l, err := core.NewLimiter(p, core.WithStore(store))
	if err != nil {
		panic(err)
	}
	admitted := 0
	for i := 0; i < 20; i++ {
		if r, err := l.Allow(context.Background(), "client-1"); err == nil && r.Allowed {
			admitted++
		}
	}
	fmt.Println("admitted", admitted)
	// Output:
	// admitted 5
}

// Check at start-up tells whether the node can sync: here nothing listens
// on 127.0.0.1:1. A node that cannot sync still decides, on its shares.
func ExampleStore_Check() {
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialerRetries: 1})
	defer client.Close()
	store, err := localfirst.New(client, localfirst.Options{Nodes: 4})
	if err != nil {
		panic(err)
	}
	err = store.Check(context.Background())
	fmt.Println("unavailable:", errors.Is(err, localfirst.ErrUnavailable))
	fmt.Println("clock skew:", errors.Is(err, localfirst.ErrClockSkew))
	// Output:
	// unavailable: true
	// clock skew: false
}
