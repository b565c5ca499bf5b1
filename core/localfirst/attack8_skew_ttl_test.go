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

// TestAttackSkewedNodeShortensWindowTTL: a window's hash is given a TTL
// from the window's end on the clock of the node writing it, plus a slack
// (here 2.2 s). A node whose clock runs 4 s ahead of the others' (an NTP
// step missed) wrote last and cut the hash's TTL to 2.7 s while the
// others' window had 4.5 s left: the hash expired with the window's count,
// and a node reading it then read 0 and claimed the window anew (87 more
// of a window of 100 it had used up, measured by letting the TTL run
// out). A round now only lengthens a hash's TTL.
func TestAttackSkewedNodeShortensWindowTTL(t *testing.T) {
	t.Parallel()
	_, client := startRedis(t)
	const skew = 4 * time.Second
	end := t0.Add(time.Minute) // the window [t0, t0+1m)
	cb := coretest.NewClock(end.Add(-skew - time.Second/2))
	ca := coretest.NewClock(end.Add(-time.Second / 2)) // 4 s ahead
	p := core.MustPolicy("ttl", core.Limit{Name: "w", Algorithm: core.FixedWindow{Quota: 100, Window: time.Minute}})
	var ns []node
	for _, clk := range []*coretest.Clock{cb, ca} {
		s, err := localfirst.New(client, localfirst.Options{Nodes: 2, Clock: clk, Timeout: 2 * time.Second, SyncPeriod: 100 * time.Millisecond, Prefix: "skewttl:"})
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		l, err := core.NewLimiter(p, core.WithStore(s), core.WithClock(clk))
		require.NoError(t, err)
		ns = append(ns, node{s, l})
	}
	for _, n := range ns { // B's round, then A's
		require.Equal(t, 1, takeAll(t, n, "k", 1))
		require.NoError(t, n.s.Sync(context.Background()))
	}
	keys, err := client.Keys(context.Background(), "skewttl:*").Result()
	require.NoError(t, err)
	require.Len(t, keys, 1, "the window's hash")
	ttl, err := client.PTTL(context.Background(), keys[0]).Result()
	require.NoError(t, err)
	left := end.Sub(cb.Now()) // what B's window has left
	assert.GreaterOrEqual(t, ttl, left, "the window's count expires %v before B's window ends", left-ttl)
}
