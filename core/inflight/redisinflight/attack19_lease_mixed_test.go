package redisinflight_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/inflight"
	"github.com/floodgate-go/floodgate/core/inflight/redisinflight"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/stretchr/testify/require"
)

// TestAttackShortLeaseCutsLongLease: limiters of one prefix and limit
// share a key's lease set whatever their Lease (a fleet in the middle of
// a reload that changed it, a process with ManualRenew and a long Lease
// beside one with a short one). On Redis TIME an Acquire or a renewal of
// a limiter with a Lease of 1 s took a live lease of 10 minutes for a
// clock that went back and cut it to 1 s: the slot was given to another
// a second later while its holder still ran (limit 1, two holders). A
// lease's end is now brought back only beyond its own Lease, which only a
// clock that went back makes.
func TestAttackShortLeaseCutsLongLease(t *testing.T) {
	t.Parallel()
	c := redistest.Start(t).Client(t)
	ctx := context.Background()
	long := newLimiter(t, c, 1, redisinflight.Options{Prefix: "mixed:", Lease: 10 * time.Minute, ManualRenew: true})
	short := newLimiter(t, c, 1, redisinflight.Options{Prefix: "mixed:", Lease: time.Second, ManualRenew: true})
	held, err := long.Acquire(ctx, "k")
	require.NoError(t, err)
	s, err := short.Acquire(ctx, "k")
	require.ErrorIs(t, err, inflight.ErrFull, "the long lease holds the only slot")
	require.Nil(t, s)
	sh, err := short.Acquire(ctx, "k2")
	require.NoError(t, err)
	require.NoError(t, sh.Renew(ctx)) // a renewal of the short one's own lease, of the same set's kind
	now, err := c.Time(ctx).Result()
	require.NoError(t, err)
	keys, err := c.Keys(ctx, "mixed:c{*").Result()
	require.NoError(t, err)
	require.Len(t, keys, 2)
	for _, k := range keys {
		leases, err := c.ZRangeWithScores(ctx, k, 0, -1).Result()
		require.NoError(t, err)
		require.Len(t, leases, 1)
		if end := time.UnixMicro(int64(leases[0].Score)); end.Sub(now) > time.Minute {
			require.Greater(t, end.Sub(now), 9*time.Minute, "the long lease keeps its end")
			ttl, err := c.PTTL(ctx, k).Result()
			require.NoError(t, err)
			require.Greater(t, ttl, 9*time.Minute, "and its set its TTL")
		}
	}
	ends := 0
	for _, k := range keys {
		leases, err := c.ZRangeWithScores(ctx, k, 0, -1).Result()
		require.NoError(t, err)
		if time.UnixMicro(int64(leases[0].Score)).Sub(now) > time.Minute {
			ends++
		}
	}
	require.Equal(t, 1, ends, "the long lease was cut to the short one's Lease")
	require.NoError(t, held.Renew(ctx), "the long lease is live")
	require.NoError(t, held.Release(ctx))
	require.NoError(t, sh.Release(ctx))
}
