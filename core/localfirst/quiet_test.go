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

// TestQuietKeysCostNothing: a round carries a key only when it has
// something to sync. A key decided once is carried by the next round
// (which pushes it) and the one after (which reads what the others
// pushed meanwhile), then by no round while nothing happens to it; 1,000
// such keys go in one script call. A window key the node used up its
// share of is carried at the next window's first round, to claim it
// before its first decisions.
func TestQuietKeysCostNothing(t *testing.T) {
	_, client := startRedis(t)
	ctx := context.Background()
	for _, alg := range []core.Algorithm{
		core.FixedWindow{Quota: 8, Window: time.Second},
		core.SlidingWindow{Quota: 8, Window: time.Second},
		core.GCRA{Rate: core.PerSecond(8)},
		core.TokenBucket{Rate: core.PerSecond(8)},
	} {
		t.Run(fmt.Sprintf("%T", alg), func(t *testing.T) {
			clk := coretest.NewClock(t0)
			p := core.MustPolicy("quiet", core.Limit{Name: "quiet", Algorithm: alg})
			n := newNodes(t, client, clk, p, 4, localfirst.Options{Prefix: fmt.Sprintf("quiet:%T:", alg), MaxBatch: 2048})[0]
			// A first round loads the script (a NOSCRIPT reply costs a call).
			assert.Equal(t, 1, takeAll(t, n, "warm", 1))
			require.NoError(t, n.s.Sync(ctx))
			require.NoError(t, n.s.Sync(ctx))
			const keys = 1000
			for k := 0; k < keys; k++ {
				assert.Equal(t, 1, takeAll(t, n, fmt.Sprint("key", k), 1))
			}
			perItem := int64(1)
			if _, ok := alg.(core.SlidingWindow); ok {
				perItem = 2 // the current window and the previous one
			}
			rounds := func(want ...int64) {
				t.Helper()
				for _, w := range want {
					before := n.s.Stats()
					clk.Advance(100 * time.Millisecond)
					require.NoError(t, n.s.Sync(ctx))
					after := n.s.Stats()
					assert.Equal(t, w*perItem, int64(after.Items-before.Items), "items")
					if w > 0 {
						assert.Equal(t, uint64(1), after.Calls-before.Calls, "one call")
					}
				}
			}
			rounds(keys, keys, 0, 0, 0)

			// A key used up: its next window is claimed at its first round.
			if _, ok := alg.(core.FixedWindow); ok {
				assert.Equal(t, 1, takeAll(t, n, "key0", 1), "its share: 2 of 8")
				rounds(1, 1, 0)
				clk.Set(t0.Add(time.Second))
				rounds(1, 0)
			}
		})
	}
}
