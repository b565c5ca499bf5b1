package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackFleetPartWayThroughReloadSharesCounts: two processes of a
// fleet on one Redis (two stores, one prefix). Process A started with a
// limit and raised it by SetPolicy (a configuration reload, an Overrides
// provider's change); process B started afterwards with the raised limit
// (a restart, a new node of an autoscaled fleet). The limit is one limit
// of the fleet: what A admitted counts in B. For every algorithm raised
// (coretest.Scaled), a key exhausted through A at one instant is admitted
// through B no more than the new limit leaves, at that instant: never a
// whole second quota.
func TestAttackFleetPartWayThroughReloadSharesCounts(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	c := srv.Client(t)
	opts := redisstore.Options{CallerClock: true, ExpirySlack: time.Hour, Prefix: "fg:fleet:"}
	a, b := newStore(t, c, opts), newStore(t, c, opts)
	for _, lim := range coretest.Algorithms() {
		t.Run(lim.Name, func(t *testing.T) {
			old := core.MustPolicy("fleet-"+lim.Name, lim)
			raised := core.MustPolicy(old.Name(), core.Limit{Name: lim.Name, Algorithm: coretest.Scaled(lim.Algorithm, true)})
			clk := coretest.NewClock(coretest.T0)
			la, err := core.NewLimiter(old, core.WithStore(a), core.WithClock(clk))
			require.NoError(t, err)
			require.NoError(t, la.SetPolicy(raised), "process A reloads")
			lb, err := core.NewLimiter(raised, core.WithStore(b), core.WithClock(clk))
			require.NoError(t, err, "process B starts with the new limit")
			fromA := admitAll(t, la, "k")
			require.Positive(t, fromA)
			fromB := admitAll(t, lb, "k")
			_, backoff := lim.Algorithm.(core.Backoff)
			if backoff {
				// A Backoff's denial is a failure counted: A's last take
				// (the one denied) locked the key; B finds it locked.
				assert.Equal(t, 0, fromB, "B after A exhausted the key: A admitted %d", fromA)
				return
			}
			assert.Equal(t, 0, fromB, "B admits what A left of the one limit: A admitted %d", fromA)
		})
	}
}

// TestAttackFleetReloadOtherShapeOtherKeys: a policy whose state is read
// in another shape (a change SetPolicy refuses: another window, another
// log length, another algorithm) is bound to other keys, never misreading
// the state of the one it replaces: process B, started with it, admits
// its whole quota after process A exhausted the old one.
func TestAttackFleetReloadOtherShapeOtherKeys(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	c := srv.Client(t)
	opts := redisstore.Options{CallerClock: true, ExpirySlack: time.Hour, Prefix: "fg:fleet:"}
	a, b := newStore(t, c, opts), newStore(t, c, opts)
	ctx := context.Background()
	for name, change := range map[string][2]core.Algorithm{
		"window":    {core.FixedWindow{Quota: 5, Window: 10 * time.Second}, core.FixedWindow{Quota: 5, Window: 20 * time.Second}},
		"anchoring": {core.FixedWindow{Quota: 5, Window: 10 * time.Second}, core.FixedWindow{Quota: 5, Window: 10 * time.Second, Anchored: true}},
		"log":       {core.SlidingLog{Quota: 5, Window: time.Second}, core.SlidingLog{Quota: 6, Window: time.Second}},
		"algorithm": {core.FixedWindow{Quota: 5, Window: 10 * time.Second}, core.SlidingWindow{Quota: 5, Window: 10 * time.Second}},
		"rolling":   {core.RollingWindow{Quota: 5, Window: 4 * time.Second, Period: time.Second}, core.RollingWindow{Quota: 5, Window: 4 * time.Second, Period: 2 * time.Second}},
		"hybrid":    {core.Hybrid{Quota: 5, Window: time.Second}, core.Hybrid{Quota: 5, Window: 2 * time.Second}},
	} {
		t.Run(name, func(t *testing.T) {
			old := core.MustPolicy("shape-"+name, core.Limit{Name: "l", Algorithm: change[0]})
			other := core.MustPolicy(old.Name(), core.Limit{Name: "l", Algorithm: change[1]})
			clk := coretest.NewClock(coretest.T0)
			la, err := core.NewLimiter(old, core.WithStore(a), core.WithClock(clk))
			require.NoError(t, err)
			require.ErrorIs(t, la.CheckPolicy(other), core.ErrPolicyChange, "a change of the state's shape")
			lb, err := core.NewLimiter(other, core.WithStore(b), core.WithClock(clk))
			require.NoError(t, err)
			for range 5 {
				r, err := la.Allow(ctx, "k")
				require.NoError(t, err)
				require.True(t, r.Allowed)
			}
			for i := range 5 {
				r, err := lb.Allow(ctx, "k")
				require.NoError(t, err)
				require.True(t, r.Allowed, "B's take %d: its own keys", i)
			}
		})
	}
}

// admitAll takes units of key through l, at its clock's instant, until
// one is denied (at most 1,000), and returns how many were admitted.
func admitAll(t *testing.T, l *core.Limiter, key string) int {
	t.Helper()
	n := 0
	for range 1000 {
		r, err := l.Allow(context.Background(), key)
		require.NoError(t, err)
		if !r.Allowed {
			break
		}
		n++
	}
	return n
}
