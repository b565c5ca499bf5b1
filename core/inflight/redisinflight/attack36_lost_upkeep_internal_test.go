package redisinflight

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestAttackLostUpkeepProportionalToDue: a full lost-lease table (an
// outage: the releases that could not reach Redis) makes room for each
// lease at a cost proportional to the leases due to go, not to the
// table's size. Before, a client timing its releases (or its hang-ups)
// during an outage made each one look at the whole table, under the
// mutex every Acquire and release of the limiter takes: 65,536 leases
// looked at for 64 releases when one lease ended between each (a scan of
// all for those ended), and as many when the set that made room held all
// of them (its leases walked to forget its oldest).
func TestAttackLostUpkeepProportionalToDue(t *testing.T) {
	const adds = 64
	for _, tc := range []struct {
		name string
		// fill fills the table; add remembers the i-th lease after.
		fill func(l *Limiter, now time.Time)
		add  func(l *Limiter, now time.Time, i int)
	}{{
		name: "one ends before each",
		fill: func(l *Limiter, now time.Time) {
			for i := range maxUnreleased {
				l.unreleasedLease(fmt.Sprint("rk", i), "m", "", now.Add(time.Duration(i+1)*time.Millisecond))
			}
		},
		add: func(l *Limiter, now time.Time, i int) {
			l.unreleasedLease(fmt.Sprint("new", i), "m", "", now.Add(time.Hour))
		},
	}, {
		name: "one set makes room",
		fill: func(l *Limiter, now time.Time) {
			for i := range maxUnreleased {
				l.unreleasedLease("abuser", fmt.Sprint("m", i), "", now.Add(time.Hour))
			}
		},
		add: func(l *Limiter, now time.Time, i int) {
			l.unreleasedLease(fmt.Sprint("new", i), "m", "", now.Add(time.Hour))
		},
	}, {
		name: "one set makes room for tombstones",
		fill: func(l *Limiter, now time.Time) {
			for i := range maxUnreleasedCancels {
				l.unreleasedLease("abuser", fmt.Sprint("c", i), "x", now.Add(time.Hour))
			}
			for i := range maxUnreleased - maxUnreleasedCancels {
				l.unreleasedLease("abuser", fmt.Sprint("m", i), "", now.Add(time.Hour))
			}
		},
		add: func(l *Limiter, now time.Time, i int) {
			l.unreleasedLease(fmt.Sprint("new", i), "m", "x", now.Add(time.Hour))
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			l, clk := offlineLimiter(t)
			start := clk.Now().Add(-l.opts.Lease) // (a Lease later, surely ended)
			tc.fill(l, start)
			require.Equal(t, maxUnreleased, l.lostN, "full")
			before := l.lostVisited
			for i := range adds {
				clk.Advance(time.Millisecond) // the i-th lease of the fill ends
				tc.add(l, start, i)
			}
			visited := l.lostVisited - before
			t.Logf("%d leases looked at for %d adds to a full table", visited, adds)
			require.LessOrEqual(t, visited, 2*adds, "proportional to the leases that go")
			require.Equal(t, maxUnreleased, l.lostN, "still full: one went for each")
		})
	}
}
