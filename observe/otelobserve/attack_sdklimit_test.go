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

// TestAttackTenantSetsCannotFillSDKLimit: the provider's names were
// bounded apart from the limiters' own (MaxPolicies, 512), but not their
// attribute sets: 512 tenants of two limits each, allowed and rejected,
// made 2,048 sets, past the SDK's default cardinality limit (2,000), and
// "login", decided after them, went to the SDK's overflow set
// (otel.metric.overflow), out of any query by policy. The sets of the
// provider's names are now at most MaxOverrideSets (1,000 by default,
// half the SDK's limit) per instrument; later ones are counted as
// "(other)".
func TestAttackTenantSetsCannotFillSDKLimit(t *testing.T) {
	t.Parallel()
	o, reader, mp := observerWith(t, otelobserve.Options{})
	ctx := context.Background()
	for i := range otelobserve.DefaultMaxPolicies {
		for _, limit := range []string{"minute", "day"} {
			for _, v := range []core.Verdict{core.VerdictAllowed, core.VerdictDenied} {
				o.Decided(ctx, core.Decision{Policy: fmt.Sprint("tenant-", i), LimitName: limit, Verdict: v, Store: "memory", Override: true})
			}
		}
	}
	o.Decided(ctx, core.Decision{Policy: "login", LimitName: "hour", Store: "memory"})
	sum, ok := collect(t, reader)["floodgate.rate_limiting.requests"].Data.(metricdata.Sum[int64])
	require.True(t, ok)
	login, overflow, other := false, false, int64(0)
	for _, p := range sum.DataPoints {
		v, _ := p.Attributes.Value(otelobserve.AttrPolicy)
		login = login || v.AsString() == "login"
		overflow = overflow || p.Attributes.Len() == 1
		if v.AsString() == otelobserve.Other {
			other += p.Value
		}
	}
	assert.True(t, login, "login keeps its own set")
	assert.False(t, overflow, "no set past the SDK's limit")
	assert.LessOrEqual(t, len(sum.DataPoints), otelobserve.DefaultMaxOverrideSets+3)
	assert.Equal(t, int64(2*2*otelobserve.DefaultMaxPolicies-otelobserve.DefaultMaxOverrideSets), other, "the later sets' decisions, counted")

	_, err := otelobserve.New(otelobserve.Options{MeterProvider: mp, MaxOverrideSets: -1})
	require.ErrorIs(t, err, core.ErrInvalidConfig)
}
