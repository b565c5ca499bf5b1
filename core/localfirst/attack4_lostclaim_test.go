package localfirst_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core/localfirst"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackLostClaimReplyKeepsTheClaimReserved: a node's round replaces
// its claim in Redis, and the reply is lost (a connection broken on the
// way back). The node keeps spending the claim it holds, which is live
// ("a live claim is spent even through failed rounds"), while Redis
// reserves for it only the claim the lost round computed: smaller when
// another node's claim expired meanwhile (the room is then split between
// two nodes instead of one). The other node's next claim took what the
// first still spent. Every unit below is admitted within a live claim (the
// nodes' first takes ask more than a share, are denied, and only ask the
// rounds to read the key), where the claims must hold the limit.
func TestAttackLostClaimReplyKeepsTheClaimReserved(t *testing.T) {
	t.Parallel()
	const quota = 100
	a, b, d, clk := lossyPair(t, "lostclaim", quota)
	ns := []node{a, b}
	life := 2*100*time.Millisecond + localfirst.MaxTimeout
	ctx := context.Background()
	ask := func(n node) { // a take beyond the share: denied, the next round reads the key
		r, err := n.l.AllowN(ctx, "k", quota/2+1)
		require.NoError(t, err)
		require.False(t, r.Allowed)
	}
	admitted := 0
	// B claims half, spends it, and its round claims 0 of what is left
	// (A's claim holds it); A's next round claims the rest: 50.
	ask(a)
	ask(b)
	syncAll(t, ns)
	admitted += takeAll(t, b, "k", quota)
	require.Equal(t, quota/2, admitted)
	clk.Advance(100 * time.Millisecond)
	require.NoError(t, b.s.Sync(ctx)) // B: total 50, claim 0 (live, made now)
	clk.Advance(100 * time.Millisecond)
	ask(a)
	require.NoError(t, a.s.Sync(ctx)) // A: claim 50 (B holds 0)
	admitted += takeAll(t, a, "k", 1)
	// B's claim expires, A's still lives: A's round (pushing its unit)
	// claims half of what remains, as B holds no claim now; its reply is
	// lost.
	clk.Set(t0.Add(100*time.Millisecond + life + 50*time.Millisecond))
	d.LoseNextReply()
	require.Error(t, a.s.Sync(ctx), "the round's reply is lost")
	require.EqualValues(t, 1, d.Lost())
	// B asks, and claims what A's lost round left.
	ask(b)
	require.NoError(t, b.s.Sync(ctx))
	admitted += takeAll(t, b, "k", quota)
	admitted += takeAll(t, a, "k", quota)
	assert.LessOrEqual(t, admitted, quota, "the fleet admitted %d in a window of %d, every unit within a live claim", admitted, quota)
}
