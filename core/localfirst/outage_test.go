package localfirst_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/localfirst"
	"github.com/floodgate-go/floodgate/internal/faultproxy"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOutageHoldsSharesAndReconverges cuts both nodes off Redis (refused
// connections): the nodes keep deciding, each granting at most its share
// of what it knew remained, so the fleet stays within the limit; when
// Redis is back, one round pushes what they admitted and they agree again.
func TestOutageHoldsSharesAndReconverges(t *testing.T) {
	t.Parallel()
	srv, _ := startRedis(t)
	proxy := faultproxy.Start(t, srv.Addr())
	client := newClient(t, proxy.Addr())
	clk := coretest.NewClock(t0)
	p := core.MustPolicy("o", core.Limit{Name: "o", Algorithm: core.FixedWindow{Quota: 100, Window: time.Minute}})
	ns := newNodes(t, client, clk, p, 2, localfirst.Options{})
	a, b := ns[0], ns[1]

	assert.Equal(t, 30, takeAll(t, a, "k", 30))
	assert.Equal(t, 1, takeAll(t, b, "k", 1))
	syncAll(t, ns) // a reads 30, b 31

	proxy.Refuse(true)
	proxy.Drop()
	// Each node spends the claim it holds in Redis (a 35 and b 34 of the
	// 69 left): the claims never add up beyond the limit. The rounds
	// that should push them fail.
	assert.Equal(t, 35, takeAll(t, a, "k", 100))
	assert.Equal(t, 34, takeAll(t, b, "k", 100))
	for _, n := range ns {
		require.Error(t, n.s.Sync(context.Background()))
	}
	assert.Zero(t, takeAll(t, a, "k", 100))
	assert.Zero(t, takeAll(t, b, "k", 100))
	// A new window during the outage: half of it each.
	clk.Advance(time.Minute)
	assert.Equal(t, 50, takeAll(t, a, "k", 100))
	assert.Equal(t, 50, takeAll(t, b, "k", 100))
	for _, n := range ns {
		require.Error(t, n.s.Sync(context.Background()))
	}

	// Redis is back: a round pushes what each admitted, the next reads
	// what the others pushed.
	proxy.Refuse(false)
	syncAll(t, ns)
	syncAll(t, ns)
	for _, n := range ns {
		r, err := n.l.Peek(context.Background(), "k", 1)
		require.NoError(t, err)
		assert.False(t, r.Allowed, "the fleet's 100 are spent")
		assert.Equal(t, int64(0), r.Remaining)
	}
	st := a.s.Stats()
	assert.Equal(t, uint64(2), st.Failed)
	assert.Equal(t, uint64(5), st.Rounds)
}

// TestStoppedRoundsMakeViewsStale: a node whose rounds stop (a stalled
// loop) treats its views as stale after 2 × SyncPeriod + Timeout, and
// holds to its share.
func TestStoppedRoundsMakeViewsStale(t *testing.T) {
	t.Parallel()
	_, client := startRedis(t)
	clk := coretest.NewClock(t0)
	p := core.MustPolicy("s", core.Limit{Name: "s", Algorithm: core.FixedWindow{Quota: 100, Window: time.Minute}})
	ns := newNodes(t, client, clk, p, 4, localfirst.Options{Prefix: "stall:"})
	a := ns[0]
	assert.Equal(t, 25, takeAll(t, a, "k", 25))
	require.NoError(t, a.s.Sync(context.Background()))
	assert.Equal(t, 10, takeAll(t, a, "k", 10), "fresh: the whole remainder is open")
	clk.Advance(2*localfirst.DefaultSyncPeriod + localfirst.MaxTimeout)
	// ⌊(100 − 25)/4⌋ = 18 unconfirmed units, of which 10 are taken.
	assert.Equal(t, 8, takeAll(t, a, "k", 100))
}
