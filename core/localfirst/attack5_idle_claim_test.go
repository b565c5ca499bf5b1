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

// TestAttackIdleClaimLocksOutOtherNodes: a client pinned to node A takes
// one unit of a shared key per period, so that A's rounds read the key
// every period; node B's clients ask for 100 units per period. A's round
// claimed the whole remainder (A alone in the previous window, or the
// first to claim), B's claims came out 0, and a node holding a live claim
// of 0 counted as served: A's next claim was again the whole remainder,
// kept whole besides as what A's live claim still held. B admitted
// nothing more for the rest of the window while most of the limit stayed
// unspent in A's claim: in 20 periods, 100 (A alone before) or 500 (both
// before) of B's 2,000 asked, with A's 20 the fleet 120 or 520 of 1,000.
// Now a node with a claim of 0 shares what remains, and a claim A does not
// spend shrinks at its next round (Redis reserves what it held until then).
func TestAttackIdleClaimLocksOutOtherNodes(t *testing.T) {
	t.Parallel()
	_, client := startRedis(t)
	for _, c := range []struct {
		name string
		prev func(a, b node) // the previous window
	}{
		{"alone in the previous window", func(a, _ node) { takeAll(t, a, "k", 10) }},
		{"both in the previous window", func(a, b node) { takeAll(t, a, "k", 10); takeAll(t, b, "k", 10) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			clk := coretest.NewClock(t0)
			p := core.MustPolicy("idle", core.Limit{Name: "idle", Algorithm: core.FixedWindow{Quota: 1000, Window: time.Minute}})
			ns := newNodes(t, client, clk, p, 2, localfirst.Options{Prefix: "idle:" + c.name + ":"})
			a, b := ns[0], ns[1]
			c.prev(a, b)
			syncAll(t, ns)
			syncAll(t, ns)
			clk.Advance(time.Minute)
			ta, tb := 0, 0
			for i := 0; i < 20; i++ {
				ta += takeAll(t, a, "k", 1)
				tb += takeAll(t, b, "k", 100)
				require.NoError(t, a.s.Sync(context.Background()))
				require.NoError(t, b.s.Sync(context.Background()))
				clk.Advance(100 * time.Millisecond)
			}
			t.Logf("A admitted %d, B %d", ta, tb)
			assert.Equal(t, 20, ta)
			// 2,000 asked of a limit of 1,000 that A's trickle hardly uses:
			// B gets its 100 a period once the claims are shared.
			assert.GreaterOrEqual(t, ta+tb, 900, "B was locked out by A's idle claim")
		})
	}
}
