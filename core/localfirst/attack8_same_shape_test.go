package localfirst_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/localfirst"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackSameShapeLimitersShareOneDecider: two limiters of one policy
// name and shape on one store (two routes each behind
// middleware.MustPerIP("100/h"), both named "per-ip") count in the same
// Redis fields, as on the Redis store ("count together"), and register in
// them under the store's one node id. Each decided on a keyset of its own:
// before the first round each admitted its ⌊Limit/Nodes⌋, a fleet of two
// processes 4 × 50 = 200 of a window of 100, and each one's claim replaced
// the other's in Redis while both were spent: 250 in the window, beyond
// the bound of Limit + (N − 1)·⌊Limit/Nodes⌋ = 150. The tables of one name
// and shape on a store now decide on one keyset: one decider per node, as
// the bound counts them (125).
func TestAttackSameShapeLimitersShareOneDecider(t *testing.T) {
	t.Parallel()
	_, c := startRedis(t)
	clk := coretest.NewClock(t0.Add(30 * time.Minute))
	const quota = 100
	p := core.MustPolicy("per-ip", core.Limit{Name: "w", Algorithm: core.FixedWindow{Quota: quota, Window: time.Hour}})
	var ls []*core.Limiter
	var ss []*localfirst.Store
	for range 2 {
		s, err := localfirst.New(c, localfirst.Options{Nodes: 2, Clock: clk, Timeout: localfirst.MaxTimeout})
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		ss = append(ss, s)
		for range 2 { // two routes
			l, err := core.NewLimiter(p, core.WithStore(s), core.WithClock(clk))
			require.NoError(t, err)
			ls = append(ls, l)
		}
	}
	ctx := context.Background()
	admitted := 0
	for round := 0; round < 6; round++ {
		n := 0
		for _, l := range ls {
			for range quota {
				r, err := l.Allow(ctx, "client")
				require.NoError(t, err)
				if !r.Allowed {
					break
				}
				n++
			}
		}
		if round == 0 {
			assert.LessOrEqual(t, n, quota, "the window's first units, before a round: ⌊Limit/Nodes⌋ a node")
		}
		admitted += n
		for _, s := range ss {
			require.NoError(t, s.Sync(ctx))
		}
	}
	// Limit + (N − 1)·⌊Limit/Nodes⌋: one node's first units reach Redis
	// after the other's first claim.
	assert.LessOrEqual(t, admitted, quota+quota/2, "4 limiters on 2 nodes admitted %d of a window of %d", admitted, quota)
}

// TestSameShapeOtherSpansApart: a policy of the name and limits of one in
// use on the store, whose bucket refills in another span (a change
// SetPolicy refuses), is of another shape: its state in other hashes, its
// keys on a keyset of its own. (Bind refused it while the first was in
// use, and core.Overrides, binding a tier anew after such a change,
// refused the tier's new keys: TestAttackOverrideSpanChangeRefusesTier.)
func TestSameShapeOtherSpansApart(t *testing.T) {
	t.Parallel()
	s, err := localfirst.New(newClient(t, "127.0.0.1:1"), localfirst.Options{Nodes: 2})
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	minute := core.MustPolicy("p", core.Limit{Name: "g", Algorithm: core.GCRA{Rate: core.PerMinute(60), Burst: 10}})
	hour := core.MustPolicy("p", core.Limit{Name: "g", Algorithm: core.GCRA{Rate: core.PerHour(60), Burst: 10}})
	tb, err := s.Bind(minute)
	require.NoError(t, err)
	require.NoError(t, s.CheckBind(hour))
	th, err := s.Bind(hour)
	require.NoError(t, err)
	_, err = s.Bind(minute)
	require.NoError(t, err, "the same policy shares the keyset")
	require.Equal(t, 2, localfirst.Keysets(s))
	runtime.KeepAlive(tb) // the tables in use until here
	runtime.KeepAlive(th)
}
