package otelobserve_test

import (
	"context"
	"strings"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/observe/otelobserve"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// TestAttackLongPolicyNameClipped: a policy named after what a client
// chose (an Overrides provider naming a policy per tenant, a tenant
// named with 64 KiB) was exported with attribute values of 64 KiB, in
// every point of every export. Now an attribute value is at most
// otelobserve.MaxAttrBytes (128) bytes: a longer name keeps its start and
// a hash of the whole, so that two long names stay apart.
func TestAttackLongPolicyNameClipped(t *testing.T) {
	t.Parallel()
	o, reader := newObserver(t)
	for _, c := range []string{"a", "b"} {
		o.Decided(context.Background(), core.Decision{Policy: "tenant-" + strings.Repeat(c, 64<<10),
			LimitName: strings.Repeat("é", 1000), Store: "memory", ShadowDenied: []string{strings.Repeat("s", 1000)}})
	}
	m := collect(t, reader)["floodgate.rate_limiting.requests"]
	sum, ok := m.Data.(metricdata.Sum[int64])
	require.True(t, ok)
	policies := map[string]bool{}
	longest := 0
	for _, p := range sum.DataPoints {
		for _, kv := range p.Attributes.ToSlice() {
			longest = max(longest, len(kv.Value.AsString()))
		}
		v, _ := p.Attributes.Value(otelobserve.AttrPolicy)
		policies[v.AsString()] = true
		assert.True(t, strings.HasPrefix(v.AsString(), "tenant-"), "the name's start is kept")
	}
	assert.LessOrEqual(t, longest, otelobserve.MaxAttrBytes)
	assert.Len(t, policies, 2, "two long names stay apart")
}
