package redisinflight_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/inflight"
	"github.com/floodgate-go/floodgate/core/inflight/redisinflight"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestAttackClockFlapFreesHeldLeases: on Redis TIME, 8 of 8 leases (Lease
// 30 s) taken 15 s ago on server A; a failover to server B, whose clock
// lags A's by 15 s, and back (a flapping failover). B's first Acquire
// found TIME 15 s before the set's seen and moved every end back 15 s,
// also those within their own Lease of B's now; back on A those ends lie
// 15 s before A's clock: each lease, with 15 s left, ended at once, and 8
// more Acquires were admitted while the 8 holders still ran (16 of 8).
// Before c4adc49 an end moved back only beyond its own Lease of now (as a
// lease of an older version's member, naming no Lease, does now): a lease
// within it kept its end. A is the test's Redis; B is emulated by moving
// every score of the set (seen too) 15 s later, and the failover back by
// moving them 15 s earlier again.
func TestAttackClockFlapFreesHeldLeases(t *testing.T) {
	t.Parallel()
	c := redistest.Start(t).Client(t)
	ctx := context.Background()
	const limit, lease, lag = 8, 30 * time.Second, 15 * time.Second
	l := newLimiter(t, c, limit, redisinflight.Options{Prefix: "flap:", Lease: lease, ManualRenew: true})
	set := redisinflight.LeaseSet(l, "k")
	move := func(d time.Duration, seenToo bool) {
		t.Helper()
		zs, err := c.ZRangeWithScores(ctx, set, 0, -1).Result()
		require.NoError(t, err)
		for _, z := range zs {
			if z.Member == "seen" && !seenToo {
				continue
			}
			require.NoError(t, c.ZAdd(ctx, set, redis.Z{Score: z.Score + float64(d/time.Microsecond), Member: z.Member}).Err())
		}
	}
	for range limit {
		_, err := l.Acquire(ctx, "k") // held: never released in this test
		require.NoError(t, err)
	}
	move(-lag, false) // taken 15 s ago: 15 s left each
	_, err := l.Acquire(ctx, "k")
	require.ErrorIs(t, err, inflight.ErrFull, "8 of 8 held (seen: now)")
	move(lag, true) // failover to B, 15 s behind A
	_, err = l.Acquire(ctx, "k")
	require.ErrorIs(t, err, inflight.ErrFull, "8 of 8 held on B")
	move(-lag, true) // failover back to A
	zs, err := c.ZRangeWithScores(ctx, set, 0, -1).Result()
	require.NoError(t, err)
	now, err := c.Time(ctx).Result()
	require.NoError(t, err)
	for _, z := range zs {
		require.Greater(t, time.UnixMicro(int64(z.Score)).Sub(now), 10*time.Second, "a lease with 15 s left ends")
	}
	admitted := 0
	for range limit {
		if s, err := l.Acquire(ctx, "k"); err == nil {
			admitted++
			_ = s
		}
	}
	require.Zero(t, admitted, "admitted while 8 of 8 are held")
}
