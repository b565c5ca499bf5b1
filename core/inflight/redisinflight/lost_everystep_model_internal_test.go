package redisinflight

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestUnreleasedModelEveryStep: the lost-lease table against oldLost as
// TestUnreleasedModel does, but compared whole (and its heap and orders
// checked) after every step that may drop a lease (an add to a full
// table, a prune, a forget) and every 10th, with few sets (one or three), leases ending
// at a handful of instants (ties in the heap), members remembered again
// in the same set or another, forgets naming other sets' members and the
// same member twice, and a clock stepping back often.
func TestUnreleasedModelEveryStep(t *testing.T) {
	t.Parallel()
	for _, seed := range []uint64{1, 2} { // three sets, all tombstones; one set, half (no tombstone: TestUnreleasedModel)
		rng := rand.New(rand.NewPCG(seed, 3636))
		l, clk := offlineLimiter(t)
		m := newOldLost(clk.Now, l.opts.Lease)
		keys := []int{1, 3}[seed%2]
		tombPct := []int{0, 100, 50, 100}[seed]
		var members []string
		fulls := 0 // adds that found the table, or its tombstones, full
		for step := range 2500 {
			rk := fmt.Sprint("rk", rng.IntN(keys))
			check := step%10 == 0 // and after each step that may drop a lease
			switch op := rng.IntN(20); {
			case op < 12:
				mb := fmt.Sprint("m", step)
				if len(members) > 0 && rng.IntN(5) == 0 {
					mb = members[rng.IntN(len(members))]
				}
				members = append(members[max(0, len(members)-30):], mb)
				tomb := ""
				if rng.IntN(100) < tombPct {
					tomb = "x" + mb
				}
				ends := clk.Now().Add(time.Duration(rng.IntN(4)-1) * 20 * time.Second)
				if m.lostN >= maxUnreleased || tomb != "" && m.lostTombs >= maxUnreleasedCancels {
					fulls++
					check = true
				}
				m.unreleasedLease(rk, mb, tomb, ends)
				l.unreleasedLease(rk, mb, tomb, ends)
			case op < 14:
				m.touchLost(rk)
				l.touchLost(rk)
			case op < 16:
				wantArgs, wantKeys := m.unreleased(rk, nil)
				args, gotKeys := l.unreleased(rk, nil)
				check = true
				require.Equal(t, wantArgs, args, "seed %d step %d", seed, step)
				require.Equal(t, wantKeys, gotKeys, "seed %d step %d", seed, step)
			case op < 18:
				gone := []any{}
				for range rng.IntN(4) {
					if len(members) > 0 {
						gone = append(gone, members[rng.IntN(len(members))])
					}
				}
				gone = append(gone, gone...) // the same member twice
				m.forget(rk, gone)
				l.forget(rk, gone)
				check = true
			default:
				switch r := rng.IntN(10); {
				case r < 3:
					clk.Advance(-time.Duration(rng.IntN(40)) * time.Second)
				case r < 5:
					clk.Advance(time.Duration(rng.IntN(100)) * time.Second / 10)
				default:
					clk.Advance(time.Duration(rng.IntN(2000)) * time.Millisecond)
				}
			}
			if check {
				require.Equal(t, m.dump(), dumpLost(t, l), "seed %d step %d", seed, step)
			}
		}
		t.Logf("seed %d: %d adds to a full table", seed, fulls)
		require.Positive(t, fulls, "seed %d: the table filled", seed)
	}
}
