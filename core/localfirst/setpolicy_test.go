package localfirst_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/localfirst"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// setAll makes every node decide p.
func setAll(t *testing.T, ns []node, p *core.Policy) {
	t.Helper()
	for _, n := range ns {
		require.NoError(t, n.l.SetPolicy(p))
	}
}

// TestSetPolicyWindowsAcrossNodes: a fleet whose window limit is lowered
// keeps its counts (the 50 units taken count against the new 60) and
// admits no more than the new limit; raised, no more than the new one.
func TestSetPolicyWindowsAcrossNodes(t *testing.T) {
	_, client := startRedis(t)
	clk := coretest.NewClock(t0)
	fixed := func(q int64) *core.Policy {
		return core.MustPolicy("w", core.Limit{Name: "w", Algorithm: core.FixedWindow{Quota: q, Window: time.Minute}})
	}
	ns := newNodes(t, client, clk, fixed(100), 2, localfirst.Options{Prefix: "setw:"})
	assert.Equal(t, 30, takeAll(t, ns[0], "k", 30))
	assert.Equal(t, 20, takeAll(t, ns[1], "k", 20))
	syncAll(t, ns)
	syncAll(t, ns)

	setAll(t, ns, fixed(60))
	total := 50
	for range 3 {
		for _, n := range ns {
			total += takeAll(t, n, "k", 100)
		}
		syncAll(t, ns)
	}
	assert.Equal(t, 60, total, "the count kept, the new limit reached, not passed")

	setAll(t, ns, fixed(200))
	for range 3 {
		for _, n := range ns {
			total += takeAll(t, n, "k", 1000)
		}
		syncAll(t, ns)
	}
	assert.LessOrEqual(t, total, 200)
	assert.GreaterOrEqual(t, total, 190)
}

// TestSetPolicyBucketsAcrossNodes: nodes holding leases of a GCRA or token
// bucket whose burst is lowered admit, at the change, no more than the
// new burst between them (each lease is cut to the node's share of it),
// and the rate goes on; a change of burst that moves the bucket's state
// to another span is refused.
func TestSetPolicyBucketsAcrossNodes(t *testing.T) {
	_, client := startRedis(t)
	for _, tc := range []struct {
		name       string
		old, lower core.Algorithm
		tooSlow    core.Algorithm
	}{
		{"GCRA", core.GCRA{Rate: core.PerSecond(100), Burst: 40}, core.GCRA{Rate: core.PerSecond(100), Burst: 10}, core.GCRA{Rate: core.PerSecond(100), Burst: 10000}},
		{"TokenBucket", core.TokenBucket{Rate: core.PerSecond(100), Burst: 40}, core.TokenBucket{Rate: core.PerSecond(100), Burst: 10}, core.TokenBucket{Rate: core.PerSecond(100), Burst: 10000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := coretest.NewClock(t0)
			pol := func(a core.Algorithm) *core.Policy {
				return core.MustPolicy("b", core.Limit{Name: "b", Algorithm: a})
			}
			ns := newNodes(t, client, clk, pol(tc.old), 2, localfirst.Options{Prefix: "setb:" + tc.name + ":"})
			// Leases flow: every period, both nodes take what they can.
			for range 10 {
				for _, n := range ns {
					takeAll(t, n, "k", 1000)
				}
				syncAll(t, ns)
				clk.Advance(100 * time.Millisecond)
			}
			// A quiet second: the bucket refills. Both nodes ask for more
			// than their share: a round leases each half the burst.
			clk.Advance(time.Second)
			syncAll(t, ns)
			for _, n := range ns {
				r, err := n.l.AllowN(context.Background(), "k", 40)
				require.NoError(t, err)
				require.False(t, r.Allowed)
			}
			syncAll(t, ns)

			setAll(t, ns, pol(tc.lower))
			at := 0
			for _, n := range ns {
				at += takeAll(t, n, "k", 1000)
			}
			assert.LessOrEqual(t, at, 10, "at the change: the new burst between the nodes")
			total := 0
			for range 10 {
				clk.Advance(100 * time.Millisecond)
				syncAll(t, ns)
				for _, n := range ns {
					total += takeAll(t, n, "k", 1000)
				}
			}
			// About the rate over the next second: less what the leases
			// held beyond the new burst until the rounds gave them back.
			assert.InDelta(t, 100, total, 25, "the rate over a second")

			err := ns[0].l.SetPolicy(pol(tc.tooSlow))
			require.ErrorIs(t, err, core.ErrPolicyChange)
			assert.Contains(t, err.Error(), "span")
		})
	}
}
