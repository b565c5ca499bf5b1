package redisinflight_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/inflight/redisinflight"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/stretchr/testify/require"
)

// TestAttackDroppedSlotKeepsNoLocalShare: under FailLocal a slot taken in
// Redis counts against the key's local share until it is released, so
// that this process holds no more slots of the key across a switch. A
// slot dropped unreleased (a caller's bug: an error path without the
// release) was counted for the life of the process, though its renewals
// stop once it is collected and its lease ends within Lease: at a limit
// of 1, every later outage refused the key its local slot (ErrFull, a
// minute after the lease ended), one dropped slot per key locking it
// out. The collection now gives its count back, as a release does.
func TestAttackDroppedSlotKeepsNoLocalShare(t *testing.T) {
	t.Parallel()
	for name, manual := range map[string]bool{"renewed": false, "ManualRenew": true} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := redistest.Start(t)
			proxy, pc := proxied(t, srv)
			clk := coretest.NewClock(t0)
			l := newLimiter(t, pc, 1, redisinflight.Options{Clock: clk, FailureMode: redisstore.FailLocal, LocalShare: 1, ManualRenew: manual})
			ctx := context.Background()
			_, err := l.Acquire(ctx, "k") // dropped, never released
			require.NoError(t, err)

			proxy.Refuse(true)
			proxy.Drop()
			clk.Set(t0.Add(90 * time.Second)) // a minute past the lease's end, past the breaker's wait
			// (The runtime runs the cleanup after a collection: the test
			// collects until the key has its local slot, a bounded number
			// of times.)
			for i := 0; i < 100; i++ {
				runtime.GC()
				runtime.Gosched()
				if s, err := l.Acquire(ctx, "k"); err == nil {
					require.NoError(t, s.Release(ctx))
					return
				}
			}
			_, err = l.Acquire(ctx, "k")
			require.NoError(t, err, "the outage's local slot of the key")
		})
	}
}
