package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/stretchr/testify/require"
)

// TestPolicyChangeAndOverrides, on one Redis store:
//   - core.Limiter.SetPolicy keeps every key's state (the same Redis keys,
//     read under the new limits), for every algorithm raised and lowered,
//     deciding as the in-memory store does;
//   - core.Overrides decides each override policy on keys of its own,
//     caches the provider's answers, and falls back to the default policy
//     on faults.
func TestPolicyChangeAndOverrides(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	c := srv.Client(t)
	s := newStore(t, c, redisstore.Options{CallerClock: true, ExpirySlack: time.Hour})
	newStore := func(*testing.T) core.Store { return s }
	t.Run("PolicyChange", func(t *testing.T) { coretest.RunPolicyChange(t, newStore) })
	t.Run("Overrides", func(t *testing.T) { coretest.RunOverrides(t, newStore) })
	checkTTLs(t, c)
}

// TestCheckPolicyAsksTheStore: a change only the Redis store refuses (a
// FixedWindow quota past 2^53, which the in-memory store takes) is refused
// by CheckPolicy, not only by SetPolicy: a configuration reload checks
// every change with CheckPolicy before it makes any, so a refusal found
// only in SetPolicy came after other policies had changed. The policy in
// force stays and decides.
func TestCheckPolicyAsksTheStore(t *testing.T) {
	t.Parallel()
	srv := startRedis(t)
	s := newStore(t, srv.Client(t), redisstore.Options{CallerClock: true})
	p := core.MustPolicy("p", core.Limit{Name: "w", Algorithm: core.FixedWindow{Quota: 2, Window: time.Minute}})
	l, err := core.NewLimiter(p, core.WithStore(s), core.WithClock(coretest.NewClock(coretest.T0)))
	require.NoError(t, err)
	huge := core.MustPolicy("p", core.Limit{Name: "w", Algorithm: core.FixedWindow{Quota: 1 << 60, Window: time.Minute}})
	require.ErrorIs(t, l.CheckPolicy(huge), core.ErrInvalidConfig)
	require.ErrorIs(t, l.SetPolicy(huge), core.ErrInvalidConfig)
	require.Equal(t, p, l.Policy())
	admitted := 0
	for range 3 {
		r, err := l.Allow(context.Background(), "k")
		require.NoError(t, err)
		if r.Allowed {
			admitted++
		}
	}
	require.Equal(t, 2, admitted, "the quota in force, 2")
}
