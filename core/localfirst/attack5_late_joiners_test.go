package localfirst_test

import (
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/localfirst"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackLateJoinersFreshShares: four nodes first see a key in the
// last period of a window (a client's request to each), and their rounds
// register them one after another: each read counted the nodes registered
// before it, 1, 2, 3 and 4. At the next window's start, before any round
// read it, each node admitted ⌊Limit/k⌋ with k that count: 100, 50, 33
// and 25, 208 in a window of 100, where the package documentation bounds
// each node's first units by ⌊Limit/k⌋ with k the nodes seen in the
// previous window, exact when they are the nodes deciding now (here: all
// four), 175 at most. A window's first units before a claim are divided
// by Nodes at least, as on a stale view: a count read part way through a
// round of registrations proves nothing. Now 25 each, 100 in all.
func TestAttackLateJoinersFreshShares(t *testing.T) {
	t.Parallel()
	_, client := startRedis(t)
	clk := coretest.NewClock(t0)
	p := core.MustPolicy("late", core.Limit{Name: "late", Algorithm: core.FixedWindow{Quota: 100, Window: time.Minute}})
	ns := newNodes(t, client, clk, p, 4, localfirst.Options{Prefix: "late:"})
	clk.Advance(time.Minute - 100*time.Millisecond) // the window's last period
	for _, n := range ns {
		require.Equal(t, 1, takeAll(t, n, "k", 1))
	}
	syncAll(t, ns) // registers the nodes in this order
	clk.Advance(100 * time.Millisecond)
	total := 0
	for i, n := range ns {
		got := takeAll(t, n, "k", 200)
		assert.Equal(t, 25, got, "node %d: ⌊100/4⌋ before a claim", i)
		total += got
	}
	assert.LessOrEqual(t, total, 100+3*25, "the fleet admitted %d in a window of 100", total)
}
