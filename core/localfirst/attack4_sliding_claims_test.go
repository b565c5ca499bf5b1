package localfirst_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/localfirst"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackSlidingClaimsDecayWithinTheLimit: four nodes sharing a hot
// SlidingWindow key, their sharers known, claim what remains mid-window
// (the previous window still weighs half of it) and take their requests
// during the period after their rounds. Each node recomputed its claim at
// decision time with all of the room the previous window's decay freed
// since the read, divided by its own claim's divisor (4, 3, 2 and 1 for
// the four nodes in their rounds' order): together they took the freed
// room about 2.08 times (H(4)), and the window's estimate passed the
// limit. Every unit was admitted within a live claim, where the package
// documentation promises that the claims never add up beyond what
// remains and that such nodes admit the limit and no more.
func TestAttackSlidingClaimsDecayWithinTheLimit(t *testing.T) {
	t.Parallel()
	_, client := startRedis(t)
	const quota, nodes = 1000, 4
	window := time.Second
	clk := coretest.NewClock(t0)
	p := core.MustPolicy("decay", core.Limit{Name: "w", Algorithm: core.SlidingWindow{Quota: quota, Window: window}})
	ns := newNodes(t, client, clk, p, nodes, localfirst.Options{Prefix: "decay:"})
	ctx := context.Background()
	// The previous window: the limit, a quarter per node; all pushed.
	for _, n := range ns {
		require.Equal(t, quota/nodes, takeAll(t, n, "k", quota))
	}
	syncAll(t, ns)
	syncAll(t, ns)
	clk.Set(t0.Add(window + window/2)) // half way: the previous window weighs 500
	prev := int64(quota)
	weighs := func() int64 { // the previous window's part, rounded down (lenient)
		rest := int64(t0.Add(2 * window).Sub(clk.Now()))
		return prev * rest / int64(window)
	}
	total := int64(0) // admitted in the current window, by every node
	worst, at := int64(0), ""
	for period := 0; period < 4; period++ {
		for _, n := range ns {
			require.NoError(t, n.s.Sync(ctx))
		}
		// Requests arrive during the period, after the rounds.
		clk.Advance(90 * time.Millisecond)
		for _, n := range ns {
			total += int64(takeAll(t, n, "k", quota))
			if total+weighs() > worst {
				worst = total + weighs()
				at = fmt.Sprintf("%v into the window: the fleet admitted %d, the previous window weighs %d", clk.Now().Sub(t0.Add(window)), total, weighs())
			}
		}
		clk.Advance(10 * time.Millisecond)
	}
	assert.LessOrEqual(t, worst, int64(quota), "the window's estimate passed the limit: %s", at)
}
