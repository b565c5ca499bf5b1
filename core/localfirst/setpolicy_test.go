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

// TestAttackRefusedSetPolicyNeverReachesRounds: a SetPolicy refused
// changes nothing, the sync rounds included. A change that raised a GCRA
// from 10/min to 6000/min and added a shadow SlidingLog (which this store
// cannot bind) was refused after the table's Rebind had handed the new
// limits to the rounds: they leased under the refused rate, and one node
// admitted 6000 in a minute under 10/min burst 10 (found by an
// adversarial review). Rebind is now SetPolicy's last step, after every
// check, and CheckPolicy asks the store too: a bucket's change of span,
// which only the store refuses, is refused by CheckPolicy.
func TestAttackRefusedSetPolicyNeverReachesRounds(t *testing.T) {
	_, client := startRedis(t)
	clk := coretest.NewClock(t0)
	old := core.MustPolicy("r", core.Limit{Name: "g", Algorithm: core.GCRA{Rate: core.PerMinute(10), Burst: 10}})
	n := newNodes(t, client, clk, old, 1, localfirst.Options{Prefix: "refused:"})[0]

	refused := core.MustPolicy("r",
		core.Limit{Name: "g", Algorithm: core.GCRA{Rate: core.PerMinute(6000), Burst: 10}},
		core.Limit{Name: "log", Algorithm: core.SlidingLog{Quota: 5, Window: time.Minute}, Shadow: true})
	require.Error(t, n.l.CheckPolicy(refused), "a SlidingLog shadow cannot be bound on this store")
	require.Error(t, n.l.SetPolicy(refused))
	require.Equal(t, old, n.l.Policy(), "the old limits stay")

	// One minute at 10/min burst 10: at most 10 + 10 (+1 at the end).
	total := 0
	for range 600 {
		total += takeAll(t, n, "k", 1000)
		require.NoError(t, n.s.Sync(context.Background()))
		clk.Advance(100 * time.Millisecond)
	}
	assert.LessOrEqual(t, total, 21, "admitted in one minute under 10/min burst 10")

	// A refill time of a day, not a minute: another span, which only the
	// store refuses.
	daily := core.MustPolicy("r", core.Limit{Name: "g", Algorithm: core.GCRA{Rate: core.PerDay(10), Burst: 10}})
	err := n.l.CheckPolicy(daily)
	require.ErrorIs(t, err, core.ErrPolicyChange)
	require.ErrorIs(t, n.l.SetPolicy(daily), core.ErrPolicyChange)
}
