package redisinflight

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestAttackOutageAcquireSkipsUnreleased: an Acquire decided without
// Redis (the breaker open) sends nothing, so it must not pay for the
// leases remembered for its key. Before, each one scanned the key's
// remembered leases under the limiter's mutex and boxed up to 64 of them
// as script arguments: with 1,024 on one key (the releases and abandoned
// Acquires of an outage's start), 70 allocations and about 20 µs under
// the mutex every Acquire and release of the limiter shares, per Acquire
// of that key, for the whole outage: a flood on that key stalled them
// all. Now the leases are read only for a round trip that goes to Redis.
func TestAttackOutageAcquireSkipsUnreleased(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1}) // refused: the breaker opens
	t.Cleanup(func() { c.Close() })
	clk := coretest.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	l, err := New(c, 1, Options{Clock: clk, Lease: time.Minute, FailureMode: redisstore.FailOpen})
	require.NoError(t, err)
	ctx := context.Background()
	for i := 0; !l.Stats().Down; i++ {
		require.Less(t, i, 10, "the breaker opens")
		_, err = l.Acquire(ctx, "other")
		require.NoError(t, err)
	}
	acquire := func() {
		s, err := l.Acquire(ctx, "k")
		if err == nil {
			_ = s.Release(ctx)
		}
	}
	base := testing.AllocsPerRun(100, acquire)
	rk, _ := l.redisKeys("k", "")
	for i := range maxUnreleased {
		l.unreleasedLease(rk, fmt.Sprint("m", i), "", clk.Now().Add(time.Minute))
	}
	require.Equal(t, maxUnreleased, l.lostN)
	require.LessOrEqual(t, testing.AllocsPerRun(100, acquire), base, "an Acquire not sent costs what it costs with nothing remembered")
	require.Equal(t, maxUnreleased, l.lostN, "kept for the key's next Acquire that reaches Redis")
}
