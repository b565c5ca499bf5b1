package localfirst_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/localfirst"
	"github.com/floodgate-go/floodgate/internal/faultproxy"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackStalledCallerSpendsExpiredClaim: node A, alone on a key in the
// previous window, claims the whole remainder of the new window (99 once
// it pushed a unit); then A is cut off from Redis, and its rounds fail for
// longer than the claim's life. Redis lets the claim lapse, and node B
// claims the room it held. A's callers that read the clock before the
// claim's end and reached the store after it (a stalled goroutine, a GC
// pause, a convoy on the shard's lock: their req.Now is before the end)
// were decided as within the live claim, by req.Now, and spent all of it:
// 199 in a window of 100, where a node cut off on a lapsed claim holds
// its share, ⌊99/2⌋ ("A node cut off alone may over-admit its share"):
// 149. Now a round that begins once a claim has lapsed ends it on the
// node, whatever the instant a caller read.
func TestAttackStalledCallerSpendsExpiredClaim(t *testing.T) {
	t.Parallel()
	const quota = 100
	srv, direct := startRedis(t)
	proxy := faultproxy.Start(t, srv.Addr())
	clk := coretest.NewClock(t0)    // the rounds' clock, and B's callers'
	caller := coretest.NewClock(t0) // A's callers': stalled once it stops
	p := core.MustPolicy("stall", core.Limit{Name: "w", Algorithm: core.FixedWindow{Quota: quota, Window: time.Hour}})
	opts := localfirst.Options{Nodes: 2, Clock: clk, SyncPeriod: 100 * time.Millisecond, Timeout: time.Second}
	mk := func(c *redis.Client, lc *coretest.Clock) node {
		s, err := localfirst.New(c, opts)
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		l, err := core.NewLimiter(p, core.WithStore(s), core.WithClock(lc))
		require.NoError(t, err)
		return node{s: s, l: l}
	}
	a, b := mk(newClient(t, proxy.Addr()), caller), mk(direct, clk)
	ctx := context.Background()
	life := 2*opts.SyncPeriod + opts.Timeout

	// The previous window: A alone.
	require.Equal(t, quota/2, takeAll(t, a, "k", quota))
	require.NoError(t, a.s.Sync(ctx))
	// The new window: A's first round claims the whole remainder; A
	// takes a unit, and its next round pushes it and claims the rest, 99.
	clk.Advance(time.Hour)
	caller.Set(clk.Now())
	require.NoError(t, a.s.Sync(ctx))
	require.Equal(t, 1, takeAll(t, a, "k", 1))
	admitted := 1
	clk.Advance(opts.SyncPeriod)
	caller.Set(clk.Now())
	require.NoError(t, a.s.Sync(ctx))
	caller.Advance(time.Millisecond) // A's callers read this instant, then stall

	// A is cut off; its rounds (reading the key again) fail past the
	// claim's life.
	proxy.Refuse(true)
	proxy.Drop()
	for range 13 {
		clk.Advance(opts.SyncPeriod)
		require.Error(t, a.s.Sync(ctx))
	}
	require.Greater(t, clk.Now().Sub(caller.Now()), life)

	// B claims what Redis holds free, round after round.
	for range 20 {
		admitted += takeAll(t, b, "k", quota)
		require.NoError(t, b.s.Sync(ctx))
		clk.Advance(opts.SyncPeriod)
	}
	require.Equal(t, quota, admitted, "B, with Redis, admits what remains")

	// A's stalled callers reach the store.
	got := takeAll(t, a, "k", 2*quota)
	admitted += got
	t.Logf("A's stalled callers admitted %d, the fleet %d in a window of %d", got, admitted, quota)
	assert.LessOrEqual(t, got, (quota-1)/2, "a node cut off on a lapsed claim holds its share")
	assert.LessOrEqual(t, admitted, quota+(quota-1)/2)
}
