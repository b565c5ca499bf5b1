package redisinflight

import (
	"fmt"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"
)

// TestUnreleasedBounded: the leases remembered for removal are at most
// maxUnreleased, those sent with one Acquire at most maxUnreleasedSent,
// and a lease surely ended is forgotten.
func TestUnreleasedBounded(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	t.Cleanup(func() { c.Close() })
	clk := coretest.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	l, err := New(c, 1, Options{Clock: clk, Lease: time.Minute})
	require.NoError(t, err)
	for i := range 3 * maxUnreleased {
		l.unreleasedLease(fmt.Sprint("rk", i%3), fmt.Sprint("m", i), clk.Now().Add(time.Minute))
	}
	require.Equal(t, maxUnreleased, l.lostN)
	args := l.unreleased("rk0")
	require.Len(t, args, maxUnreleasedSent)
	l.forget("rk0", args)
	require.Equal(t, maxUnreleased-maxUnreleasedSent, l.lostN)
	for i := range maxUnreleasedSent {
		l.unreleasedLease("rk0", fmt.Sprint("again", i), clk.Now().Add(time.Minute))
	}
	require.Equal(t, maxUnreleased, l.lostN)

	clk.Advance(2*time.Minute + time.Millisecond) // a Lease past their end
	l.unreleasedLease("rk9", "late", clk.Now().Add(time.Minute))
	require.Equal(t, 1, l.lostN, "full: the ended ones pruned to make room")
	require.Empty(t, l.unreleased("rk1"))
	l.unreleasedLease("rk9", "ended", clk.Now().Add(-2*time.Minute))
	require.Equal(t, []any{"late"}, l.unreleased("rk9"), "a lease surely ended is not remembered")
}
