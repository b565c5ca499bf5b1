package redisinflight

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestAbandonedThenReleasedCountsOnce: a slot's cleanup may run while its
// Release is under way (the Slot is unreachable past its last use in
// Slot.Release): the lease's count among the key's slots held is given
// back once, not by both, which would count another held slot of the key
// out and let the local limiter grant one slot too many.
func TestAbandonedThenReleasedCountsOnce(t *testing.T) {
	t.Parallel()
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1})
	t.Cleanup(func() { c.Close() })
	l, err := New(c, 2, Options{Clock: coretest.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)),
		Lease: time.Minute, FailureMode: redisstore.FailLocal, LocalShare: 1, ManualRenew: true})
	require.NoError(t, err)
	l.hold("k", 2) // two slots of k held in Redis
	ls := &lease{l: l, key: "k", rk: "rk", id: "m"}
	ls.abandon()
	_ = ls.release(context.Background()) // (Redis unreachable: remembered)
	require.Equal(t, 1, l.held["k"], "the other slot still counted")
}
