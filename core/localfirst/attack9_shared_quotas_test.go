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

// sharedRoutes returns, for each of two nodes, the limiters of two routes
// named alike on one store: quotas loose and tight of one window, bound in
// the order given (the latest syncs).
func sharedRoutes(t *testing.T, clk *coretest.Clock, first, second int64) ([2][2]*core.Limiter, []*localfirst.Store) {
	t.Helper()
	_, c := startRedis(t)
	var ls [2][2]*core.Limiter
	var ss []*localfirst.Store
	for n := range ls {
		s, err := localfirst.New(c, localfirst.Options{Nodes: 2, Clock: clk, Timeout: localfirst.MaxTimeout})
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		ss = append(ss, s)
		for r, q := range []int64{first, second} {
			p := core.MustPolicy("per-ip", core.Limit{Name: "w", Algorithm: core.FixedWindow{Quota: q, Window: time.Hour}})
			l, err := core.NewLimiter(p, core.WithStore(s), core.WithClock(clk))
			require.NoError(t, err)
			ls[n][r] = l
		}
	}
	return ls, ss
}

func syncStores(t *testing.T, ss []*localfirst.Store) {
	t.Helper()
	for _, s := range ss {
		require.NoError(t, s.Sync(context.Background()))
	}
}

// TestAttackSharedKeysetTightRouteCapsLooseOne: two routes behind
// per-ip limiters of 100/h and 10/h on each of two nodes count in the same
// fields; the rounds claim under the limits of the latest bound (10/h),
// and the loose route spent those claims as its cap: a client using only
// the loose route was held to about 10 an hour, a tenth of its quota.
func TestAttackSharedKeysetTightRouteCapsLooseOne(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(t0.Add(30 * time.Minute))
	ls, ss := sharedRoutes(t, clk, 100, 10)
	admitted := 0
	for range 8 {
		for _, n := range ls {
			admitted += takeUntilDenied(t, n[0], "client", 20)
		}
		syncStores(t, ss)
	}
	assert.GreaterOrEqual(t, admitted, 90, "the loose route admitted %d of its 100", admitted)
	assert.LessOrEqual(t, admitted, 150)
}

// TestAttackSharedKeysetLooseClaimsDenyTightRoute: with the loose route
// bound last, its claims (about half of 100 each) were deducted from the
// tight route's 10: a client that made 4 requests on the loose route was
// denied every request on the tight one.
func TestAttackSharedKeysetLooseClaimsDenyTightRoute(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(t0.Add(30 * time.Minute))
	ls, ss := sharedRoutes(t, clk, 10, 100)
	ctx := context.Background()
	for range 2 {
		for _, n := range ls {
			r, err := n[1].Allow(ctx, "client")
			require.NoError(t, err)
			require.True(t, r.Allowed)
		}
		syncStores(t, ss)
	}
	admitted := 0
	for range 4 {
		for _, n := range ls {
			admitted += takeUntilDenied(t, n[0], "client", 10)
		}
		syncStores(t, ss)
	}
	assert.GreaterOrEqual(t, admitted, 4, "the tight route admitted %d of the 6 its quota leaves", admitted)
	assert.LessOrEqual(t, admitted, 6+5, "the tight route's bound")
}

// TestSharedKeysetTightRouteKeepsItsBound: whichever route of two named
// alike syncs, a client on the tight one (10/h) on two nodes is admitted
// at most its bound, Limit + (N − 1)·⌊Limit/Nodes⌋.
func TestSharedKeysetTightRouteKeepsItsBound(t *testing.T) {
	t.Parallel()
	for _, order := range [][2]int64{{10, 100}, {100, 10}} {
		clk := coretest.NewClock(t0.Add(30 * time.Minute))
		ls, ss := sharedRoutes(t, clk, order[0], order[1])
		tight := 0
		if order[1] == 10 {
			tight = 1
		}
		admitted := 0
		for range 5 {
			for _, n := range ls {
				for range 10 {
					r, err := n[tight].Allow(context.Background(), "client")
					require.NoError(t, err)
					if !r.Allowed {
						break
					}
					admitted++
				}
			}
			syncStores(t, ss)
		}
		assert.LessOrEqual(t, admitted, 15, "bound in the order %v", order)
		assert.GreaterOrEqual(t, admitted, 10, "bound in the order %v", order)
	}
}

// takeUntilDenied takes for key on l until l denies, at most n times, and
// returns how many it admitted.
func takeUntilDenied(t *testing.T, l *core.Limiter, key string, n int) int {
	t.Helper()
	for i := range n {
		r, err := l.Allow(context.Background(), key)
		require.NoError(t, err)
		if !r.Allowed {
			return i
		}
	}
	return n
}
