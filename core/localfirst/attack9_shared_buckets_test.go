package localfirst_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackSharedBucketChargedAtOtherRate: two routes of one name and
// shape, a GCRA of 10/min burst 10 and one of 100/min burst 100 bound
// after it, decide on one keyset, and the rounds push its units with the
// latest limits: each unit the tight route admitted was charged to the
// shared TAT at the loose route's interval (0.6 s, not 6 s), and a client
// using the tight route alone on two nodes was admitted about ten times
// its rate. Each table's units are now charged at its own interval.
func TestAttackSharedBucketChargedAtOtherRate(t *testing.T) {
	t.Parallel()
	for _, alg := range []func(n int64) core.Algorithm{
		gcraBurstN,
		func(n int64) core.Algorithm { return core.TokenBucket{Rate: core.PerMinute(n), Burst: n} },
	} {
		clk := coretest.NewClock(t0)
		ls, ss := sharedBucketRoutes(t, clk, alg, 10, 100)
		admitted := 0
		for range 60 { // one minute, a round a second
			for _, node := range ls {
				admitted += takeUntilDenied(t, node[0], "client", 10) // the tight route
			}
			syncStores(t, ss)
			clk.Advance(time.Second)
		}
		// Burst 10 and 10 more in the minute, with a node's share of slack.
		assert.LessOrEqual(t, admitted, 10+10+5, "%T: the 10/min route admitted %d in a minute", alg(1), admitted)
	}
}

// gcraBurstN is a GCRA of n a minute and a burst of n.
func gcraBurstN(n int64) core.Algorithm { return core.GCRA{Rate: core.PerMinute(n), Burst: n} }

// TestAttackSharedBucketLooseRouteChargedAtTightRate: with the 10/min
// route bound last, each unit of the 100/min route was pushed as one unit
// of the 10/min limits, charged 6 s, not 0.6 s: a client on the 100/min
// route alone was admitted 80 in half a minute, less than its burst. Its
// units are now charged at its own interval (142).
func TestAttackSharedBucketLooseRouteChargedAtTightRate(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(t0)
	ls, ss := sharedBucketRoutes(t, clk, gcraBurstN, 100, 10)
	admitted := 0
	for range 30 { // half a minute, a round a second
		for _, node := range ls {
			admitted += takeUntilDenied(t, node[0], "client", 40) // the loose route
		}
		syncStores(t, ss)
		clk.Advance(time.Second)
	}
	// Burst 100 and 50 more in half a minute.
	assert.GreaterOrEqual(t, admitted, 100, "the 100/min route admitted %d in half a minute", admitted)
	assert.LessOrEqual(t, admitted, 100+50+50)
}

// TestAttackSharedBucketRemainderDropped: the 100/min route's units,
// pushed in the 6 s units of a 10/min route bound last, carry what falls
// short of one to the next take; a client taking 9 units (5.4 s) on each
// of two nodes, then idle until its view recovered, left each remainder
// with an entry dropped as recovered: nothing ever reached Redis, and the
// fleet admitted the route's rate on each node: 540 in three minutes,
// bound about 400. The part of a unit a take starts is now charged whole
// at that take, the rest prepaid: 374.
func TestAttackSharedBucketRemainderDropped(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(t0)
	ls, ss := sharedBucketRoutes(t, clk, gcraBurstN, 100, 10)
	admitted := 0
	for range 30 { // three minutes
		for _, node := range ls {
			for range 9 { // the loose route
				r, err := node[0].Allow(context.Background(), "client")
				require.NoError(t, err)
				if r.Allowed {
					admitted++
				}
			}
		}
		for range 2 {
			syncStores(t, ss)
			clk.Advance(3 * time.Second)
		}
		syncStores(t, ss)
	}
	// Burst 100 and 300 more in three minutes, a node's share of slack.
	assert.LessOrEqual(t, admitted, 100+300+50, "the 100/min route admitted %d in three minutes", admitted)
}
