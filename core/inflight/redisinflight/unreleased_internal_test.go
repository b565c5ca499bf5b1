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
	l, clk := offlineLimiter(t)
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
// in seconds), a release that finds none ended makes room without looking
// at them all. Before, each such release scanned the 1,024 leases under
// the mutex every Acquire and release takes (about 100 µs a release on
// this machine: at ten thousand releases a second the mutex is never
// free, during the very outage FailLocal serves).
func TestAttackUnreleasedFullScansOnlyWhenOneEnded(t *testing.T) {
	l, clk := offlineLimiter(t)
	for i := range maxUnreleased {
		l.unreleasedLease(fmt.Sprint("rk", i), fmt.Sprint("m", i), "", clk.Now().Add(time.Minute+time.Duration(i)*time.Millisecond))
	}
	require.Zero(t, l.lostVisited)
	for i := range 100 {
		l.unreleasedLease("full", fmt.Sprint("f", i), "", clk.Now().Add(time.Minute+time.Second))
	}
	require.Equal(t, maxUnreleased, l.lostN)
	require.Equal(t, 100, l.lostVisited, "none has ended: only those forgotten looked at")
	require.Nil(t, l.lost["rk99"], "the least recently used forgotten")
	require.NotNil(t, l.lost["rk100"])

	clk.Advance(2*time.Minute + 100*time.Millisecond) // rk100's lease surely ended
	l.unreleasedLease("rk", "new", "", clk.Now().Add(time.Minute))
	require.Equal(t, 101, l.lostVisited, "only the ended one looked at")
	require.Equal(t, maxUnreleased, l.lostN, "the ended one made room")
	require.Nil(t, l.lost["rk100"])
	require.NotNil(t, l.lost["rk101"])
	l.unreleasedLease("rk", "newer", "", clk.Now().Add(time.Minute))
	require.Equal(t, 102, l.lostVisited, "the next to end has not: only the one forgotten looked at")
	require.Nil(t, l.lost["rk101"], "the least recently used forgotten")
	require.Equal(t, maxUnreleased, l.lostN)
}

// TestUnreleasedForgetsLeastRecentlyUsed: a full table forgets the
// oldest lease of the set least recently released or Acquired, and the
// tombstones the abandoned Acquires' of the set least recently used of
// those that have one.
func TestUnreleasedForgetsLeastRecentlyUsed(t *testing.T) {
	l, clk := offlineLimiter(t)
	ends := clk.Now().Add(time.Minute)
	for i := range maxUnreleased - 2 {
		l.unreleasedLease(fmt.Sprint("abuser", i), "m", "", ends)
	}
	l.unreleasedLease("victim", "v1", "", ends)
	l.unreleasedLease("victim", "v2", "", ends)
	l.touchLost("abuser0") // its key Acquired again: kept
	l.unreleasedLease("late", "l", "", ends)
	require.Equal(t, maxUnreleased, l.lostN)
	require.NotNil(t, l.lost["abuser0"])
	require.Nil(t, l.lost["abuser1"], "the least recently used")
	for range maxUnreleased - 3 { // the other 1,020 abusers', then v1
		l.unreleasedLease("flood", "f", "", ends)
	}
	require.Equal(t, []any{"v2"}, unreleasedArgs(l, "victim"), "its oldest lease forgotten first")

	l, _ = offlineLimiter(t)
	for i := range maxUnreleasedCancels {
		l.unreleasedLease(fmt.Sprint("cancel", i), "m", "x", ends)
	}
	l.unreleasedLease("cancel0", "r", "", ends) // (its set used: but the oldest with a tombstone)
	l.unreleasedLease("new", "n", "x", ends)
	require.Equal(t, maxUnreleasedCancels, l.lostTombs)
	require.Equal(t, []any{"m", "r"}, unreleasedArgs(l, "cancel0"), "its set used last: kept")
	require.Nil(t, l.lost["cancel1"], "the least recently used with a tombstone")
	l.forget("cancel0", []any{"m", "r"})
	require.Nil(t, l.lost["cancel0"])
	n := maxUnreleasedCancels - 1 // cancel2 to cancel511, and new
	require.Equal(t, n, l.lostTombs)
	require.Equal(t, n, l.lostN)
	require.Equal(t, n, l.lostUse.Len())
	require.Equal(t, n, l.lostTombUse.Len())
}

// unreleasedArgs is the script arguments l.unreleased gives for rk.
func unreleasedArgs(l *Limiter, rk string) []any {
	args, _ := l.unreleased(rk, nil)
	return args
}

// TestAttackCancelsLeaveRoomForReleases: the abandoned Acquires whose
// cancellations were not sent (every Acquire in flight as an outage
// starts, of any key: a client's flood then) take at most half of the
// leases remembered, so that the releases of the slots held, which end
// during the outage, are still remembered and removed once Redis
// answers. Before, 1,024 such Acquires left no room: of 100 releases
// that followed, none was remembered, and their keys stayed full for the
// rest of their Lease once Redis was back.
func TestAttackCancelsLeaveRoomForReleases(t *testing.T) {
	l, clk := offlineLimiter(t)
	for i := range maxUnreleased {
		l.unreleasedLease(fmt.Sprint("flood", i), fmt.Sprint("m", i), fmt.Sprint("x", i), clk.Now().Add(time.Minute))
	}
	for i := range 100 {
		l.unreleasedLease(fmt.Sprint("held", i), fmt.Sprint("r", i), "", clk.Now().Add(time.Minute))
	}
	released := 0
	for i := range 100 {
		released += len(unreleasedArgs(l, fmt.Sprint("held", i)))
	}
	require.Equal(t, 100, released, "every release is remembered")
	require.Equal(t, maxUnreleasedCancels, l.lostTombs)

	l.forget("flood0", []any{"m0"}) // one removed: room for another
	l.unreleasedLease("flood", "again", "x", clk.Now().Add(time.Minute))
	require.Equal(t, maxUnreleasedCancels, l.lostTombs)
	require.Equal(t, 1, l.lost["flood"].n)
	clk.Advance(3 * time.Minute) // all surely ended: the scan frees their room
	l.unreleasedLease("flood", "late", "x", clk.Now().Add(time.Minute))
	require.Equal(t, 1, l.lostTombs)
	require.Equal(t, 1, l.lostN)
}

// offlineLimiter returns a limiter of limit 1 and a Lease of a minute on
// its own clock, whose client reaches no Redis: for the unreleased-lease
// table alone.
func offlineLimiter(t *testing.T) (*Limiter, *coretest.Clock) {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	t.Cleanup(func() { c.Close() })
	clk := coretest.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	l, err := New(c, 1, Options{Clock: clk, Lease: time.Minute})
	require.NoError(t, err)
	return l, clk
}
