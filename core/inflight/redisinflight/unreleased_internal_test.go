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
		l.unreleasedLease(fmt.Sprint("rk", i%3), fmt.Sprint("m", i), "", clk.Now().Add(time.Minute))
	}
	require.Equal(t, maxUnreleased, l.lostN)
	args := unreleasedArgs(l, "rk0")
	require.Len(t, args, maxUnreleasedSent)
	l.forget("rk0", args)
	require.Equal(t, maxUnreleased-maxUnreleasedSent, l.lostN)
	for i := range maxUnreleasedSent {
		l.unreleasedLease("rk0", fmt.Sprint("again", i), "", clk.Now().Add(time.Minute))
	}
	require.Equal(t, maxUnreleased, l.lostN)

	clk.Advance(2*time.Minute + time.Millisecond) // a Lease past their end
	l.unreleasedLease("rk9", "late", "", clk.Now().Add(time.Minute))
	require.Equal(t, 1, l.lostN, "full: the ended ones pruned to make room")
	require.Empty(t, unreleasedArgs(l, "rk1"))
	l.unreleasedLease("rk9", "ended", "", clk.Now().Add(-2*time.Minute))
	require.Equal(t, []any{"late"}, unreleasedArgs(l, "rk9"), "a lease surely ended is not remembered")
}

// TestAttackUnreleasedFullScansOnlyWhenOneEnded: once maxUnreleased
// leases are remembered (an outage on a service of many keys reaches it
// in seconds), a release that finds none ended is dropped without
// looking at them all. Before, each such release scanned the 1,024
// leases under the mutex every Acquire and release takes (about 100 µs a
// release on this machine: at ten thousand releases a second the mutex
// is never free, during the very outage FailLocal serves).
func TestAttackUnreleasedFullScansOnlyWhenOneEnded(t *testing.T) {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	t.Cleanup(func() { c.Close() })
	clk := coretest.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	l, err := New(c, 1, Options{Clock: clk, Lease: time.Minute})
	require.NoError(t, err)
	for i := range maxUnreleased {
		l.unreleasedLease(fmt.Sprint("rk", i), fmt.Sprint("m", i), "", clk.Now().Add(time.Minute+time.Duration(i)*time.Millisecond))
	}
	require.Zero(t, l.lostScans)
	for i := range 100 {
		l.unreleasedLease("full", fmt.Sprint("f", i), "", clk.Now().Add(time.Minute))
	}
	require.Equal(t, maxUnreleased, l.lostN)
	require.Zero(t, l.lostScans, "none has ended: nothing to look for")

	clk.Advance(2 * time.Minute) // the first one surely ended
	l.unreleasedLease("rk", "new", "", clk.Now().Add(time.Minute))
	require.Equal(t, 1, l.lostScans)
	require.Equal(t, maxUnreleased, l.lostN, "the ended one made room")
	l.unreleasedLease("rk", "newer", "", clk.Now().Add(time.Minute))
	require.Equal(t, 1, l.lostScans, "the next to end has not")
	require.Equal(t, maxUnreleased, l.lostN)
}

// unreleasedArgs is the script arguments l.unreleased gives for rk.
func unreleasedArgs(l *Limiter, rk string) []any {
	args, _ := l.unreleased(rk, nil)
	return args
}
