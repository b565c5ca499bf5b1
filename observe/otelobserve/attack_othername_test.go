package otelobserve_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/observe/otelobserve"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// TestAttackTenantNamedOtherIsBounded: the sets of an Overrides provider's
// names counted towards MaxOverrideSets unless their policy value was
// Other, as the sets past the bound are; but a tenant may name its policy
// "(other)" itself, and its sets, one per limit name (up to MaxPolicies ×
// core.MaxLimits pairs: 2,048 by default, past the SDK's limit), were
// never counted. A set is now left uncounted only when the bound made
// both its policy and limit Other.
func TestAttackTenantNamedOtherIsBounded(t *testing.T) {
	t.Parallel()
	const maxSets = 3
	o, reader, _ := observerWith(t, otelobserve.Options{MaxPolicies: 2, MaxOverrideSets: maxSets})
	ctx := context.Background()
	for i := range 2 * core.MaxLimits {
		o.Decided(ctx, core.Decision{Policy: otelobserve.Other, LimitName: fmt.Sprint("l", i), Store: "memory", Override: true})
	}
	sum, ok := collect(t, reader)["floodgate.rate_limiting.requests"].Data.(metricdata.Sum[int64])
	require.True(t, ok)
	var total int64
	for _, p := range sum.DataPoints {
		total += p.Value
	}
	assert.Equal(t, int64(2*core.MaxLimits), total, "every decision counted")
	// maxSets of the tenant's limits, then one Other/Other set.
	assert.LessOrEqual(t, len(sum.DataPoints), maxSets+1)
}
