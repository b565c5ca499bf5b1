package core_test

import (
	"context"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestZeroOverridesErrs: every method of a nil or zero Overrides fails
// with ErrInvalidConfig, none panics. Refund of a decision some limiter
// really took panicked (a nil pointer in its ownership check).
func TestZeroOverridesErrs(t *testing.T) {
	ctx := context.Background()
	l, err := core.NewLimiter(core.MustPolicy("p", core.Limit{Name: "g", Algorithm: core.GCRA{Rate: core.PerMinute(10)}}))
	require.NoError(t, err)
	taken, err := l.Allow(ctx, "k")
	require.NoError(t, err)
	require.True(t, taken.Taken())
	for name, o := range map[string]*core.Overrides{"nil": nil, "zero": {}} {
		_, err := o.Allow(ctx, "k")
		assert.ErrorIs(t, err, core.ErrInvalidConfig, name)
		_, err = o.Peek(ctx, "k", 1)
		assert.ErrorIs(t, err, core.ErrInvalidConfig, name)
		_, err = o.Refund(ctx, "k", taken)
		assert.ErrorIs(t, err, core.ErrInvalidConfig, name)
		assert.ErrorIs(t, o.Reset(ctx, "k"), core.ErrInvalidConfig, name)
		assert.Nil(t, o.Default(), name)
	}
}
