package redisinflight

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// lostRow is a remembered lease, with its set's key.
type lostRow struct {
	rk, member, tomb string
	ends             time.Time
}

// lostDump is a lost-lease table's state (see oldLost.dump).
type lostDump struct {
	sets, tombSets []string
	leases         []lostRow
	n, tombs       int
	any            bool
}

// TestUnreleasedModel: thousands of random operations (leases remembered
// with or without a tombstone, ending at instants near now, some ended
// already; keys Acquired; leases sent and removed; the clock moving,
// sometimes back) on the table and on oldLost, the table as it was before
// its expiry heap, keep, drop and send the same leases, in the same
// order, and order the sets alike.
func TestUnreleasedModel(t *testing.T) {
	t.Parallel()
	const steps = 6000 // each seed fills the table hundreds of times
	for seed := range uint64(9) {
		rng := rand.New(rand.NewPCG(seed, 36))
		l, clk := offlineLimiter(t)
		m := newOldLost(clk.Now, l.opts.Lease)
		keys := []int{2, 40, 3000}[seed%3] // one key's big set, some keys, many
		tombPct := []int{0, 50, 90}[seed/3%3]
		member := 0
		var members []string     // recent members, some remembered again
		fulls, tombFulls := 0, 0 // adds that found the table full, its tombstones
		check := func(step int, full bool) {
			if !full {
				require.Equal(t, m.lostN, l.lostN, "seed %d step %d", seed, step)
				require.Equal(t, m.lostTombs, l.lostTombs, "seed %d step %d", seed, step)
				return
			}
			require.Equal(t, m.dump(), dumpLost(t, l), "seed %d step %d", seed, step)
		}
		for step := range steps {
			rk := fmt.Sprint("rk", rng.IntN(keys))
			switch op := rng.IntN(20); {
			case op < 12:
				mb := fmt.Sprint("m", member)
				member++
				if len(members) > 0 && rng.IntN(20) == 0 {
					mb = members[rng.IntN(len(members))]
				}
				members = append(members[max(0, len(members)-50):], mb)
				tomb := ""
				if rng.IntN(100) < tombPct {
					tomb = "x" + mb
				}
				// Ends, plus a Lease, from 10 s ago to 110 s on, in
				// steps of 100 ms (leases ending together).
				ends := clk.Now().Add(time.Duration(rng.IntN(1200)-700) * 100 * time.Millisecond)
				m.unreleasedLease(rk, mb, tomb, ends)
				l.unreleasedLease(rk, mb, tomb, ends)
				if m.lostN == maxUnreleased {
					fulls++
				}
				if m.lostTombs == maxUnreleasedCancels {
					tombFulls++
				}
			case op < 14:
				m.touchLost(rk)
				l.touchLost(rk)
			case op < 17:
				wantArgs, wantKeys := m.unreleased(rk, []string{"k"})
				args, gotKeys := l.unreleased(rk, []string{"k"})
				require.Equal(t, wantArgs, args, "seed %d step %d", seed, step)
				require.Equal(t, wantKeys, gotKeys, "seed %d step %d", seed, step)
				if len(args) > 0 && rng.IntN(4) == 0 { // the script ran
					args = args[:rng.IntN(min(len(args), 8)+1)]
					m.forget(rk, args)
					l.forget(rk, args)
				}
			case op < 18:
				gone := []any{fmt.Sprint("m", rng.IntN(member+1)), "nobody's"}
				m.forget(rk, gone)
				l.forget(rk, gone)
			default:
				switch r := rng.IntN(200); {
				case r < 2:
					clk.Advance(-time.Duration(rng.IntN(30_000)) * time.Millisecond)
				case r < 3: // most leases end
					clk.Advance(time.Duration(rng.IntN(120_000)) * time.Millisecond)
				default:
					clk.Advance(time.Duration(rng.IntN(20)) * time.Millisecond)
				}
			}
			check(step, step%193 == 0 || step == steps-1)
		}
		t.Logf("seed %d: %d adds to a full table, %d to its full tombstones", seed, fulls, tombFulls)
		require.Positive(t, fulls+tombFulls, "seed %d: the table filled", seed)
		if tombPct == 50 {
			require.Positive(t, fulls, "seed %d: the table filled", seed)
			require.Positive(t, tombFulls, "seed %d: its tombstones filled", seed)
		}
	}
}

// dumpLost is l's lost-lease table's state (see oldLost.dump), checked
// on the way: each set's orders and counts agree, and the heap holds the
// table's leases, each at its place, in heap order.
func dumpLost(t *testing.T, l *Limiter) lostDump {
	var d lostDump
	for e := l.lostUse.Front(); e != nil; e = e.Next() {
		set := e.Value.(*lostSet)
		d.sets = append(d.sets, set.rk)
		var tombed []*lost
		n := 0
		for x := set.orders[allLost].first; x != nil; x = x.links[allLost].next {
			n++
			d.leases = append(d.leases, lostRow{set.rk, x.member, x.tomb, x.ends})
			require.Same(t, set, x.set)
			require.Same(t, x, l.lostEnds[x.at], "in the heap, at its place")
			if x.tomb != "" {
				tombed = append(tombed, x)
			}
		}
		var tombs []*lost
		for x := set.orders[tombLost].first; x != nil; x = x.links[tombLost].next {
			tombs = append(tombs, x)
		}
		require.Equal(t, tombed, tombs, "those with a tombstone, in order")
		require.Len(t, tombs, set.tombs)
		require.Equal(t, n, set.n)
	}
	for e := l.lostTombUse.Front(); e != nil; e = e.Next() {
		d.tombSets = append(d.tombSets, e.Value.(*lostSet).rk)
	}
	d.n, d.tombs, d.any = l.lostN, l.lostTombs, l.lostAny.Load()
	require.Len(t, l.lostEnds, l.lostN, "the heap holds the table's leases and no more")
	for i := 1; i < len(l.lostEnds); i++ {
		require.False(t, l.lostEnds[i].ends.Before(l.lostEnds[(i-1)/2].ends), "heap order")
	}
	return d
}
