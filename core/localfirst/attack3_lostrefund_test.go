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

// TestAttackLostRefundPushNotGivenTwice: a node refunds a unit it had
// pushed already, so its round pushes a negative count; Redis applies it,
// but the reply is lost (a connection broken on the way back). The next
// round must not give it back again: a round whose reply was lost "counts
// twice, which only denies more" holds for units admitted, not for units
// given back, which pushed twice lower the window's total below what the
// fleet admitted, and the fleet admits past the limit.
func TestAttackLostRefundPushNotGivenTwice(t *testing.T) {
	t.Parallel()
	const quota = 10
	a, b, d, _ := lossyPair(t, "lost", quota)
	ns := []node{a, b}
	ctx := context.Background()
	syncAll(t, ns)
	// B admits 5, A admits 1; both pushed.
	for range 5 {
		r, err := b.l.Allow(ctx, "k")
		require.NoError(t, err)
		require.True(t, r.Allowed)
	}
	took, err := a.l.Allow(ctx, "k")
	require.NoError(t, err)
	require.True(t, took.Allowed)
	syncAll(t, ns)
	// A gives its unit back: its next round pushes −1, and the reply is lost.
	_, err = a.l.Refund(ctx, "k", took)
	require.NoError(t, err)
	d.LoseNextReply()
	require.Error(t, a.s.Sync(ctx), "the round's reply is lost")
	require.EqualValues(t, 1, d.Lost())
	syncAll(t, ns)
	syncAll(t, ns)
	// The fleet has 5 units admitted in the window: 5 more at most.
	admitted := 5
	for i := 0; i < 20; i++ { // rounds until both nodes deny
		n := takeAll(t, a, "k", quota) + takeAll(t, b, "k", quota)
		admitted += n
		syncAll(t, ns)
		if n == 0 && i > 2 {
			break
		}
	}
	assert.LessOrEqual(t, admitted, quota, "the fleet admitted %d in a window of %d", admitted, quota)
}

// lossyPair returns two nodes sharing a FixedWindow of quota per hour
// (policy name) on one Redis, on clk (at t0), SyncPeriod 100 ms: a reaches
// Redis through d, a proxy that can lose a round's reply, b directly.
func lossyPair(t *testing.T, name string, quota int64) (a, b node, d *faultproxy.Proxy, clk *coretest.Clock) {
	t.Helper()
	srv, direct := startRedis(t)
	d = faultproxy.Start(t, srv.Addr())
	clk = coretest.NewClock(t0)
	p := core.MustPolicy(name, core.Limit{Name: "w", Algorithm: core.FixedWindow{Quota: quota, Window: time.Hour}})
	var ns []node
	for _, c := range []*redis.Client{newClient(t, d.Addr()), direct} {
		s, err := localfirst.New(c, localfirst.Options{Nodes: 2, Clock: clk, SyncPeriod: 100 * time.Millisecond, Timeout: localfirst.MaxTimeout})
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		l, err := core.NewLimiter(p, core.WithStore(s), core.WithClock(clk))
		require.NoError(t, err)
		ns = append(ns, node{s: s, l: l})
	}
	return ns[0], ns[1], d, clk
}
