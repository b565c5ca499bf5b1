package inflight_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/floodgate-go/floodgate/core/inflight"
)

// At most two requests of a key in flight: the third is refused until one
// ends.
func ExampleMemory() {
	lim, err := inflight.NewMemory(2, inflight.MemoryOptions{})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	a, _ := lim.Acquire(ctx, "alice")
	b, _ := lim.Acquire(ctx, "alice")
	_, err = lim.Acquire(ctx, "alice")
	fmt.Println("third:", errors.Is(err, inflight.ErrFull))

	fmt.Println("release:", a.Release(ctx))
	fmt.Println("again:", a.Release(ctx)) // harmless: no extra slot
	c, err := lim.Acquire(ctx, "alice")
	fmt.Println("after release:", err, lim.InFlight("alice"))
	_ = b.Release(ctx)
	_ = c.Release(ctx)
	// Output:
	// third: true
	// release: <nil>
	// again: inflight: slot already released
	// after release: <nil> 2
}

// Wait queues for a slot instead of being refused.
func ExampleMemory_Wait() {
	lim, err := inflight.NewMemory(1, inflight.MemoryOptions{MaxWaiters: 8})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	held, _ := lim.Acquire(ctx, "job")
	got := make(chan *inflight.Slot)
	go func() {
		s, err := lim.Wait(ctx, "job") // waits until held is released
		if err != nil {
			panic(err)
		}
		got <- s
	}()
	_ = held.Release(ctx)
	s := <-got
	fmt.Println("waiter served, in flight:", lim.InFlight("job"))
	_ = s.Release(ctx)
	// Output:
	// waiter served, in flight: 1
}
