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

// TestAttackClockBehindMovesOldMembers: on Redis TIME, a lease whose
// member names no Lease (taken by a version before members did: a rolling
// deploy) was never brought back after the clock went back an hour (a
// failover to a lagging server, an NTP step): once its holder died, a
// limit of one refused every Acquire for the hour and 30 s. Every end of a
// set now moves back by as much as TIME reads before the set's latest
// decision on it, whatever its member: held 30 s at most, and still held
// while they run, by an Acquire and a renewal alike. The server an hour
// ahead is emulated by moving every score of a set written on TIME an hour
// later, with its TTL.
func TestAttackClockBehindMovesOldMembers(t *testing.T) {
	t.Parallel()
	c := redistest.Start(t).Client(t)
	ctx := context.Background()
	const lease = 30 * time.Second
	for _, renew := range []bool{false, true} {
		prefix := "old:acquire:"
		if renew {
			prefix = "old:renew:"
		}
		l := newLimiter(t, c, 2, redisinflight.Options{Prefix: prefix, Lease: lease, ManualRenew: true})
		before, err := c.Time(ctx).Result()
		require.NoError(t, err)
		s, err := l.Acquire(ctx, "k")
		require.NoError(t, err)
		set := redisinflight.LeaseSet(l, "k")
		// An older version's lease, taken before s: 128 bits in hex, no
		// Lease; its holder dies.
		const old = "0123456789abcdef0123456789abcdef"
		require.NoError(t, c.ZAdd(ctx, set, redis.Z{Score: float64(before.Add(lease).UnixMicro()), Member: old}).Err())
		leases, err := c.ZRangeWithScores(ctx, set, 0, -1).Result()
		require.NoError(t, err)
		for _, z := range leases { // as the server an hour ahead wrote them
			require.NoError(t, c.ZAdd(ctx, set, redis.Z{Score: z.Score + float64(time.Hour/time.Microsecond), Member: z.Member}).Err())
		}
		require.NoError(t, c.PExpire(ctx, set, time.Hour+lease).Err())
		if renew {
			require.NoError(t, s.Renew(ctx), "still live")
		} else {
			require.NoError(t, s.Release(ctx))
			_, err = l.Acquire(ctx, "k")
			require.NoError(t, err, "one slot of two free")
			_, err = l.Acquire(ctx, "k")
			require.ErrorIs(t, err, inflight.ErrFull, "the old lease still holds the other")
		}
		after, err := c.Time(ctx).Result()
		require.NoError(t, err)
		end, err := c.ZScore(ctx, set, old).Result()
		require.NoError(t, err, "the old lease is still held")
		require.LessOrEqual(t, time.UnixMicro(int64(end)).Sub(after), lease, "held a Lease at most, not the hour")
		require.Greater(t, time.UnixMicro(int64(end)).Sub(before), time.Duration(0))
		ttl, err := c.PTTL(ctx, set).Result()
		require.NoError(t, err)
		require.LessOrEqual(t, ttl, lease+time.Second, "the set's TTL too")
		require.Less(t, after.Sub(before), time.Minute, "Redis's clock did not move an hour meanwhile")
	}
}

// TestSeenIsNoLease: a set's "seen" member is never counted as a lease,
// by a limiter on Redis TIME or one on a clock behind it (whose reading
// lies before seen), and leaves with the set.
func TestSeenIsNoLease(t *testing.T) {
	t.Parallel()
	c := redistest.Start(t).Client(t)
	ctx := context.Background()
	opts := redisinflight.Options{Prefix: "seen:", Lease: time.Minute, ManualRenew: true}
	onTime := newLimiter(t, c, 1, opts)
	s, err := onTime.Acquire(ctx, "k")
	require.NoError(t, err)
	require.NoError(t, s.Release(ctx))
	set := redisinflight.LeaseSet(onTime, "k")
	_, err = c.ZScore(ctx, set, "seen").Result()
	require.NoError(t, err, "the set records its decision on TIME")
	now, err := c.Time(ctx).Result()
	require.NoError(t, err)
	lagging := opts
	lagging.Clock = coretest.NewClock(now.Add(-10 * time.Second))
	behind := newLimiter(t, c, 1, lagging)
	held, err := behind.Acquire(ctx, "k")
	require.NoError(t, err, "seen is no lease on a clock behind it")
	_, err = onTime.Acquire(ctx, "k")
	require.ErrorIs(t, err, inflight.ErrFull, "the lease holds the only slot")
	require.NoError(t, held.Release(ctx))
	s, err = onTime.Acquire(ctx, "k")
	require.NoError(t, err, "seen is no lease on TIME")
	require.NoError(t, s.Release(ctx))
	ttl, err := c.PTTL(ctx, set).Result()
	require.NoError(t, err)
	require.Positive(t, ttl, "seen lives with the set's TTL")
	require.LessOrEqual(t, ttl, time.Minute+time.Second)
}
