package inflight_test

import (
	"context"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/inflight"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A nil or zero Memory (not made by NewMemory) answers every call with
// an error wrapping core.ErrInvalidConfig, or nothing held, instead of
// panicking at the first request as it did (maphash: use of
// uninitialized Seed), as a zero core.Limiter does.
func TestZeroMemoryErrs(t *testing.T) {
	ctx := context.Background()
	for _, m := range []*inflight.Memory{{}, nil} {
		require.NotPanics(t, func() {
			s, err := m.Acquire(ctx, "k")
			assert.Nil(t, s)
			assert.ErrorIs(t, err, core.ErrInvalidConfig)
			s, err = m.Wait(ctx, "k")
			assert.Nil(t, s)
			assert.ErrorIs(t, err, core.ErrInvalidConfig)
			assert.Zero(t, m.InFlight("k"))
			assert.Zero(t, m.Waiting("k"))
			assert.Zero(t, m.Limit())
		}, "%#v", m)
	}
}
