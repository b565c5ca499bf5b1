package redisstore_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/faultproxy"
	"github.com/floodgate-go/floodgate/internal/redistest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackFailLocalAcrossSetPolicy: during a Redis outage, FailLocal
// grants this process its LocalShare of each limit; a change of the
// policy's limits (SetPolicy, a configuration reload, an Overrides
// provider's refresh) made a fresh local limiter, which granted the share
// again: a limit of 10/hour at a share of 1/2 let 5 requests through,
// then 6 more after a raise to 12, 5 after a lowering back to 10, and so
// on at every change. The local limiter is now kept across changes (read
// under the new scaled limits, counts kept, as SetPolicy does on the
// memory store): over the outage the process grants at most its share of
// the largest limit.
func TestAttackFailLocalAcrossSetPolicy(t *testing.T) {
	t.Parallel()
	fw := func(q int64) *core.Policy {
		return core.MustPolicy("p", core.Limit{Name: "w", Algorithm: core.FixedWindow{Quota: q, Window: time.Hour, Anchored: true}})
	}
	// down is a store on a Redis that has just gone (connections refused).
	down := func(t *testing.T) *redisstore.Store {
		srv := redistest.Start(t)
		px := faultproxy.Start(t, srv.Addr())
		s, _ := faultStore(t, patientClient(t, px.Addr()), redisstore.Options{Timeout: noDeadline,
			FailureMode: redisstore.FailLocal, LocalShare: 0.5})
		require.NoError(t, s.Check(context.Background()))
		px.Refuse(true)
		px.Drop()
		return s
	}
	ctx := context.Background()
	takeAll := func(t *testing.T, allow func() (core.Result, error)) int {
		n := 0
		for ; n < 100; n++ {
			r, err := allow()
			require.NoError(t, err)
			if !r.Allowed {
				break
			}
		}
		return n
	}

	t.Run("SetPolicy", func(t *testing.T) {
		t.Parallel()
		s := down(t)
		l := faultLimiter(t, s, fw(10))
		allow := func() (core.Result, error) { return l.Allow(ctx, "k") }
		total := takeAll(t, allow)
		assert.Equal(t, 5, total, "the share of 10")
		for i := range 6 {
			q := []int64{12, 10}[i%2]
			require.NoError(t, l.SetPolicy(fw(q)))
			total += takeAll(t, allow)
		}
		assert.True(t, s.Down())
		assert.Equal(t, 6, total, "at most the share of the largest limit, 12, over the outage")
	})

	t.Run("Overrides", func(t *testing.T) {
		t.Parallel()
		s := down(t)
		// The provider's limit for the tenant moves at every call, and
		// its answers are cached for a nanosecond: every request applies
		// a change.
		var calls atomic.Int64
		provider := func(context.Context, string) (*core.Policy, bool, error) {
			q := []int64{10, 12}[calls.Add(1)%2]
			return core.MustPolicy("tenant", core.Limit{Name: "w", Algorithm: core.FixedWindow{Quota: q, Window: time.Hour, Anchored: true}}), true, nil
		}
		o, err := core.NewOverrides(fw(100), provider, core.OverrideOptions{TTL: time.Nanosecond}, core.WithStore(s))
		require.NoError(t, err)
		total := 0
		for range 5 {
			total += takeAll(t, func() (core.Result, error) { return o.Allow(ctx, "k") })
		}
		assert.True(t, s.Down())
		assert.Greater(t, calls.Load(), int64(5), "the tenant's limit changed again and again")
		assert.LessOrEqual(t, total, 6, "at most the share of the largest limit, 12, over the outage")
	})
}
