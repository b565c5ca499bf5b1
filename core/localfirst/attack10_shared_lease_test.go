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

// sharedBucketRoutes returns, for each of two nodes, the limiters of two
// routes named alike on one store, bound in the order of rates given
// (per minute, the burst a tenth of a minute's: each refills in 6 s),
// the latest syncing.
func sharedBucketRoutes(t *testing.T, clk *coretest.Clock, alg func(n int64) core.Algorithm, rates ...int64) ([2][]*core.Limiter, []*localfirst.Store) {
	t.Helper()
	_, c := startRedis(t)
	var ls [2][]*core.Limiter
	var ss []*localfirst.Store
	for n := range ls {
		s, err := localfirst.New(c, localfirst.Options{Nodes: 2, Clock: clk, Timeout: localfirst.MaxTimeout})
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		ss = append(ss, s)
		for _, q := range rates {
			l, err := core.NewLimiter(core.MustPolicy("per-ip", core.Limit{Name: "b", Algorithm: alg(q)}), core.WithStore(s), core.WithClock(clk))
			require.NoError(t, err)
			ls[n] = append(ls[n], l)
		}
	}
	return ls, ss
}

// bucketKinds make a GCRA and a token bucket of a rate per minute and a
// burst; bucketAlgs those of a rate per minute whose burst refills in 6 s.
var bucketKinds = []func(rate, burst int64) core.Algorithm{
	func(rate, burst int64) core.Algorithm { return core.GCRA{Rate: core.PerMinute(rate), Burst: burst} },
	func(rate, burst int64) core.Algorithm {
		return core.TokenBucket{Rate: core.PerMinute(rate), Burst: burst}
	},
}

var bucketAlgs = []func(n int64) core.Algorithm{
	func(n int64) core.Algorithm { return bucketKinds[0](n, n/10) },
	func(n int64) core.Algorithm { return bucketKinds[1](n, n/10) },
}

// TestAttackSharedBucketTightRouteLeaseTooSmall: a route of 240/min
// (burst 24) sharing its keyset with one of 2400/min bound after it
// asked the rounds for leases of twice what its takes cost in its own
// units, while each of its takes spends ten of the latest limits' units
// of a lease: once leases flowed, every other lease paid for none of its
// takes, and a client pinned to one node at three quarters of the route's
// rate was denied 12 of 24 requests (the route alone: none). It asks in
// the lease's units now: none denied.
func TestAttackSharedBucketTightRouteLeaseTooSmall(t *testing.T) {
	t.Parallel()
	for _, alg := range bucketAlgs {
		for _, rates := range [][]int64{{240}, {240, 2400}} {
			clk := coretest.NewClock(t0)
			ls, ss := sharedBucketRoutes(t, clk, alg, rates...)
			ctx := context.Background()
			for range 30 { // the burst, and more: leases flow
				_, err := ls[0][0].Allow(ctx, "client")
				require.NoError(t, err)
			}
			syncStores(t, ss)
			clk.Advance(time.Second)
			denied := 0
			for round := range 12 { // 3/s on one node, three quarters of the route's rate
				for range 3 {
					r, err := ls[0][0].Allow(ctx, "client")
					require.NoError(t, err)
					if !r.Allowed && round >= 4 { // the first rounds refill what the burst took
						denied++
					}
				}
				syncStores(t, ss)
				clk.Advance(time.Second)
			}
			assert.Zero(t, denied, "%T, rates %v: %d of 24 denied at three quarters of the route's rate", alg(1), rates, denied)
		}
	}
}

// TestAttackSharedBucketLeaseSpentInOtherUnits: two routes of one name
// and shape, GCRA 60/min and 600/min (bursts 6 and 60), the loose one
// bound last: its leases (half its burst on each of two nodes, the bucket
// leased out) are counted in its units. A SetPolicy of the tight route
// (burst 5) made its limits the latest, and the loose route spent its
// leases in those units, ten of its units to one: each node admitted all
// its view held, 90 at once of a bucket of 60 (never charged in Redis). A
// lease granted under other limits is now cut to the node's share of the
// latest limits' burst whichever table spends it, as after a SetPolicy of
// the table's own.
func TestAttackSharedBucketLeaseSpentInOtherUnits(t *testing.T) {
	t.Parallel()
	for _, alg := range bucketAlgs {
		clk := coretest.NewClock(t0)
		ls, ss := sharedBucketRoutes(t, clk, alg, 60, 600)
		ctx := context.Background()
		for _, n := range ls { // more than a node's share: the next round leases
			r, err := n[1].AllowN(ctx, "client", 31)
			require.NoError(t, err)
			require.False(t, r.Allowed)
		}
		syncStores(t, ss)
		tight := ls[0][0].Policy().Limits()[0]
		switch a := tight.Algorithm.(type) {
		case core.GCRA:
			a.Burst = 5
			tight.Algorithm = a
		case core.TokenBucket:
			a.Burst = 5
			tight.Algorithm = a
		}
		for _, n := range ls {
			require.NoError(t, n[0].SetPolicy(core.MustPolicy("per-ip", tight)))
		}
		admitted := 0
		for _, n := range ls {
			admitted += takeUntilDenied(t, n[1], "client", 100)
		}
		assert.LessOrEqual(t, admitted, 60, "%T: the loose route admitted %d of a bucket of 60 leased out", alg(1), admitted)
	}
}

// TestAttackSharedBucketCoarseLatestUnitUncharged: a route of 60/min
// (burst 60) sharing its keyset with one of 1/min (burst 1) bound after
// it: each of its takes is a sixtieth of the latest limits' unit, which
// was charged only once whole, the rest carried on the node. Each node
// held up to a whole bucket uncharged: Redis and so every view and share
// saw nothing of it, a lease of one unit paid for nearly two, and two
// nodes taking all they could admitted 190 in ten seconds, where the
// route's GCRA admits 70 and the package's bound is about 135. The part
// of a unit is now charged whole at the take that starts it, the rest
// prepaid for the next takes: Redis never counts less than was admitted.
func TestAttackSharedBucketCoarseLatestUnitUncharged(t *testing.T) {
	t.Parallel()
	for _, kind := range bucketKinds {
		clk := coretest.NewClock(t0)
		ls, ss := sharedBucketRoutes(t, clk, func(n int64) core.Algorithm { return kind(n, n) }, 60, 1)
		admitted := 0
		for range 10 {
			for _, n := range ls {
				admitted += takeUntilDenied(t, n[0], "client", 100)
			}
			syncStores(t, ss)
			clk.Advance(time.Second)
		}
		// Burst 60 and 10 more, λ's and the nodes' shares of slack.
		assert.LessOrEqual(t, admitted, 60+10+10+2*31, "%T: the 60/min route admitted %d in ten seconds", kind(1, 1), admitted)
	}
}
