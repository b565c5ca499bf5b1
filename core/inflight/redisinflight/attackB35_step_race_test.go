package redisinflight_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/inflight"
	"github.com/floodgate-go/floodgate/core/inflight/redisinflight"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestAttackStepConcurrentAcquires: 8 slots, 4 held by live holders, the
// set written by a server an hour ahead (every score an hour later: TIME
// reads an hour before them), then 400 goroutines Acquire at once (those
// beyond the calls a limiter lets out refused), each holding what it gets
// until all have tried: never more than the 4 free slots admitted, and
// the 4 live leases still held after.
func TestAttackStepConcurrentAcquires(t *testing.T) {
	t.Parallel()
	c := redistest.Start(t).Client(t)
	ctx := context.Background()
	const limit, lease = 8, 30 * time.Second
	l := newLimiter(t, c, limit, redisinflight.Options{Prefix: "race:", Lease: lease, ManualRenew: true})
	set := redisinflight.LeaseSet(l, "k")
	var held []*inflight.Slot
	for i := range limit {
		s, err := l.Acquire(ctx, "k")
		require.NoError(t, err)
		if i < limit/2 {
			require.NoError(t, s.Release(ctx))
		} else {
			held = append(held, s)
		}
	}
	zs, err := c.ZRangeWithScores(ctx, set, 0, -1).Result()
	require.NoError(t, err)
	for _, z := range zs {
		require.NoError(t, c.ZAdd(ctx, set, redis.Z{Score: z.Score + float64(time.Hour/time.Microsecond), Member: z.Member}).Err())
	}
	require.NoError(t, c.PExpire(ctx, set, time.Hour+lease).Err())
	// Every slot admitted is held until all 400 Acquires have returned:
	// the slots admitted are all held at once, whatever the scheduling.
	var admitted atomic.Int64
	var tried, wg sync.WaitGroup
	tried.Add(400)
	errs := make(chan error, 400)
	for range 400 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := l.Acquire(ctx, "k")
			tried.Done()
			if err != nil { // full, or refused (128 calls outstanding at most)
				return
			}
			admitted.Add(1)
			tried.Wait()
			if err := s.Release(ctx); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.LessOrEqual(t, admitted.Load(), int64(limit/2), "held at once beside the 4 live leases")
	require.Positive(t, admitted.Load())
	require.Equal(t, int64(limit/2), c.ZCard(ctx, set).Val(), "the 4 live leases still held")
	for _, s := range held {
		require.NoError(t, s.Renew(ctx), "still live")
	}
}
