package localfirst_test

import (
	"context"
	"fmt"
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

// TestAttackKeyFloodFailsTheRoundOfKnownKeys: a flood of distinct keys
// makes a round as long as its keys (2,000 items here; 50,000 took 2 s on
// Redis against a Timeout of 500 ms), and a round cut part way — its
// deadline, a broken connection — failed every call of its single
// pipeline (go-redis stamps a pipeline's transport error on every
// command, those whose replies came back too). The keys the fleet already
// shares failed with the flood's: no read, and their units, which Redis
// had applied, pushed again: a victim's 10 units counted 20 after one cut
// round, and again at every round the flood cuts, until its clients are
// denied what they never took. Now a round sends the keys a round has
// read before in a pipeline of their own, ahead of the keys new to the
// node, in pipelines of about 4,096 items, and sends none once its
// Timeout has passed (what it did not send is pushed again exactly,
// refunds included).
func TestAttackKeyFloodFailsTheRoundOfKnownKeys(t *testing.T) {
	t.Parallel()
	const quota = 1000
	srv, direct := startRedis(t)
	proxy := faultproxy.Start(t, srv.Addr())
	clk := coretest.NewClock(t0)
	p := core.MustPolicy("fr", core.Limit{Name: "w", Algorithm: core.FixedWindow{Quota: quota, Window: time.Hour}})
	var ns []node
	for _, c := range []*redis.Client{newClient(t, proxy.Addr()), direct} {
		s, err := localfirst.New(c, localfirst.Options{Nodes: 2, Clock: clk, Timeout: localfirst.MaxTimeout})
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		l, err := core.NewLimiter(p, core.WithStore(s), core.WithClock(clk))
		require.NoError(t, err)
		ns = append(ns, node{s: s, l: l})
	}
	a, b := ns[0], ns[1]
	ctx := context.Background()
	require.Equal(t, 10, takeAll(t, a, "victim", 10))
	syncAll(t, ns)
	syncAll(t, ns)

	// The victim takes 10 more; 2,000 new keys one each.
	require.Equal(t, 10, takeAll(t, a, "victim", 10))
	for i := range 2000 {
		require.Equal(t, 1, takeAll(t, a, fmt.Sprint("flood-", i), 1))
	}
	proxy.CutRepliesAfter(1000) // the round's first replies come back
	require.Error(t, a.s.Sync(ctx))
	require.EqualValues(t, 1, proxy.Lost())
	syncAll(t, ns)
	syncAll(t, ns)

	// B reads the victim's count.
	require.Equal(t, 1, takeAll(t, b, "victim", 1))
	syncAll(t, ns)
	syncAll(t, ns)
	r, err := b.l.Peek(ctx, "victim", 1)
	require.NoError(t, err)
	assert.EqualValues(t, quota-(20+1)-1, r.Remaining, "the victim's 20 units and B's 1 counted once (less the peek's unit)")
}
