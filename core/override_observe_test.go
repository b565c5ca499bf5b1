package core_test

import (
	"context"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An Overrides reports the decisions of its provider's policies with
// Decision.Override, and its default's without, so that an exporter can
// bound the provider's names apart from the limiters' own.
func TestOverrideDecisionsReportedAsOverrides(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	obs := &coretest.Observer{}
	provider := func(_ context.Context, key string) (*core.Policy, bool, error) {
		if key == "tenant" {
			return hourlyPolicy("tenant", 5), true, nil
		}
		return nil, false, nil
	}
	o, err := core.NewOverrides(hourlyPolicy("default", 5), provider, core.OverrideOptions{},
		core.WithClock(coretest.NewClock(t0)), core.WithObserver(obs))
	require.NoError(t, err)
	for _, key := range []string{"tenant", "anonymous"} {
		_, err := o.Allow(ctx, key)
		require.NoError(t, err)
	}
	ds := obs.Decisions()
	require.Len(t, ds, 2)
	assert.Equal(t, "tenant", ds[0].Policy)
	assert.True(t, ds[0].Override)
	assert.Equal(t, "default", ds[1].Policy)
	assert.False(t, ds[1].Override)
}
