package redisinflight_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/inflight"
	"github.com/floodgate-go/floodgate/core/inflight/redisinflight"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestAttackClockBehindBoundsLeases: on Redis TIME (the default), a lease
// whose end lay ahead of the deciding server's clock by more than a Lease
// (taken on a server whose clock ran an hour ahead, before a failover to
// one that lags; a clock NTP stepped back) held its slot for that hour
// after its holder died: a limit of one refused every Acquire for an hour
// and 30 s, where a Lease of 30 s was promised. An Acquire or a renewal on
// TIME now brings such an end back to now + Lease: the slot is held no
// longer than a Lease, and still held while it runs. The old server is a
// limiter on the caller's clock, set an hour after Redis's TIME.
func TestAttackClockBehindBoundsLeases(t *testing.T) {
	t.Parallel()
	c := redistest.Start(t).Client(t)
	ctx := context.Background()
	const lease = 30 * time.Second
	before, err := c.Time(ctx).Result()
	require.NoError(t, err)
	clk := coretest.NewClock(before.Add(time.Hour).Truncate(time.Microsecond))
	opts := redisinflight.Options{Prefix: "behind:", Lease: lease, ManualRenew: true}
	oldOpts := opts
	oldOpts.Clock = clk
	old := newLimiter(t, c, 1, oldOpts)
	_, err = old.Acquire(ctx, "k") // its holder dies: never released
	require.NoError(t, err)

	now := newLimiter(t, c, 1, opts)
	_, err = now.Acquire(ctx, "k")
	require.ErrorIs(t, err, inflight.ErrFull, "the lease still holds the only slot")
	after, err := c.Time(ctx).Result()
	require.NoError(t, err)
	keys, err := c.Keys(ctx, "behind:c{*").Result()
	require.NoError(t, err)
	require.Len(t, keys, 1)
	leases, err := c.ZRangeWithScores(ctx, keys[0], 0, -1).Result()
	require.NoError(t, err)
	require.Len(t, leases, 1)
	end := time.UnixMicro(int64(leases[0].Score))
	require.LessOrEqual(t, end.Sub(after), lease, "held a Lease at most, not the hour the clock went back")
	require.Greater(t, end.Sub(before), time.Duration(0))
	ttl, err := c.PTTL(ctx, keys[0]).Result()
	require.NoError(t, err)
	require.LessOrEqual(t, ttl, lease+time.Second)
	require.Less(t, after.Sub(before), time.Minute, "Redis's clock did not move an hour meanwhile")

	// A renewal on TIME of a lease ending an hour ahead (its server's
	// clock stepped back since it was taken) keeps it, a Lease from now.
	require.NoError(t, c.Del(ctx, keys[0]).Err())
	s, err := now.Acquire(ctx, "k")
	require.NoError(t, err)
	leases, err = c.ZRangeWithScores(ctx, keys[0], 0, -1).Result()
	require.NoError(t, err)
	require.Len(t, leases, 1)
	require.NoError(t, c.ZAdd(ctx, keys[0], redis.Z{Score: leases[0].Score + float64(time.Hour/time.Microsecond), Member: leases[0].Member}).Err())
	require.NoError(t, s.Renew(ctx), "still live")
	after, err = c.Time(ctx).Result()
	require.NoError(t, err)
	leases, err = c.ZRangeWithScores(ctx, keys[0], 0, -1).Result()
	require.NoError(t, err)
	require.Len(t, leases, 1)
	end = time.UnixMicro(int64(leases[0].Score))
	require.LessOrEqual(t, end.Sub(after), lease, "renewed a Lease from now, not an hour more")
	require.Greater(t, end.Sub(before), time.Duration(0))
	require.NoError(t, s.Release(ctx))
}
