package otelobserve_test

import (
	"context"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/observetest"
	"github.com/floodgate-go/floodgate/observe/otelobserve"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// TestAttackTenantChurnBoundsPolicyAttributes: an Overrides provider
// naming a policy per tenant, tenants coming and going, made an attribute
// set of every name ever decided, kept by the Observer for the life of
// the process (and exported, up to the SDK's cardinality limit, 2,000 by
// default, past which the SDK's overflow set hides every later name,
// however the names ahead of it were chosen): 40 tenants left 40 policy
// values and 80 points. Now the first MaxPolicies names keep values of
// their own and every later one is counted as policy and limit
// "(other)": 8 names and the overflow, 18 points.
func TestAttackTenantChurnBoundsPolicyAttributes(t *testing.T) {
	t.Parallel()
	o, reader, mp := observerWith(t, otelobserve.Options{MaxPolicies: 8})
	observetest.ChurnTenants(t, o, 40)

	m := collect(t, reader)["floodgate.rate_limiting.requests"]
	sum, ok := m.Data.(metricdata.Sum[int64])
	require.True(t, ok)
	policies, limits := map[string]bool{}, map[string]bool{}
	for _, p := range sum.DataPoints {
		v, _ := p.Attributes.Value(otelobserve.AttrPolicy)
		policies[v.AsString()] = true
		v, _ = p.Attributes.Value(otelobserve.AttrLimit)
		limits[v.AsString()] = true
	}
	assert.Len(t, policies, 9, "8 names and the overflow")
	assert.True(t, policies[otelobserve.Other])
	assert.Equal(t, map[string]bool{"hour": true, otelobserve.Other: true}, limits)
	assert.Len(t, sum.DataPoints, 18, "acquired and rejected of each pair")
	points := ints(t, m)
	assert.Equal(t, int64(32), points["limit="+otelobserve.Other+",policy="+otelobserve.Other+",result=acquired,source=store,store=memory"])
	assert.Equal(t, int64(32), points["limit="+otelobserve.Other+",policy="+otelobserve.Other+",result=rejected,source=store,store=memory"])

	_, err := otelobserve.New(otelobserve.Options{MeterProvider: mp, MaxPolicies: -1})
	require.ErrorIs(t, err, core.ErrInvalidConfig)
}

// TestAttackTenantFloodCannotHideOwnPolicies: tenants filling MaxPolicies
// first made every policy of the service's own decided after them
// "(other)"; the names of an Overrides provider (core.Decision.Override)
// are bounded apart, and "login" keeps its value.
func TestAttackTenantFloodCannotHideOwnPolicies(t *testing.T) {
	t.Parallel()
	o, reader, _ := observerWith(t, otelobserve.Options{MaxPolicies: 8})
	observetest.ChurnTenants(t, o, 40)
	o.Decided(context.Background(), core.Decision{Policy: "login", LimitName: "hour", Store: "memory"})
	sum, ok := collect(t, reader)["floodgate.rate_limiting.requests"].Data.(metricdata.Sum[int64])
	require.True(t, ok)
	policies := map[string]bool{}
	for _, p := range sum.DataPoints {
		v, _ := p.Attributes.Value(otelobserve.AttrPolicy)
		policies[v.AsString()] = true
	}
	assert.True(t, policies["login"], "%v", policies)
	assert.Len(t, policies, 10, "8 tenants, the overflow, login")
}

// TestAttackTenantChurnBoundsMemoryAttributes: the memory gauges
// (memory.key_count, memory.key_limit) took each table's policy name as
// it was: tenants churning through an Overrides on a watched MemoryStore
// made 41 policy values in 40 collections, one per sign-up. Now a table's
// policy keeps the value its decisions have, else one while MaxPolicies
// more admit it; later tables are summed as "(other)".
func TestAttackTenantChurnBoundsMemoryAttributes(t *testing.T) {
	t.Parallel()
	o, reader, _ := observerWith(t, otelobserve.Options{MaxPolicies: 8})
	ms, err := core.NewMemoryStore(core.MemoryOptions{MaxKeys: 64, Shards: 1})
	require.NoError(t, err)
	o.WatchMemory(ms)
	seen := map[string]bool{}
	observetest.ChurnTenantsEach(t, o, 40, func() {
		g, ok := collect(t, reader)["floodgate.rate_limiting.memory.key_count"].Data.(metricdata.Gauge[int64])
		require.True(t, ok)
		for _, p := range g.DataPoints {
			v, _ := p.Attributes.Value(otelobserve.AttrPolicy)
			seen[v.AsString()] = true
		}
	}, core.WithStore(ms))
	assert.LessOrEqual(t, len(seen), 2*8+1, "the tenants decided, 8 tables more, the overflow: %v", seen)
	assert.True(t, seen[otelobserve.Other])
	assert.False(t, seen["tenant-39"], "a late tenant is summed as the overflow")
}
