package redisinflight_test

import (
	"context"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/inflight/redisinflight"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A nil or zero Limiter (not made by New) answers every call with an
// error wrapping core.ErrInvalidConfig, or nothing held, as a zero
// inflight.Memory does, instead of panicking at the first request (a nil
// clock, breaker and wait line).
func TestZeroLimiterErrs(t *testing.T) {
	ctx := context.Background()
	for _, l := range []*redisinflight.Limiter{{}, nil} {
		require.NotPanics(t, func() {
			s, err := l.Acquire(ctx, "k")
			assert.Nil(t, s)
			assert.ErrorIs(t, err, core.ErrInvalidConfig)
			s, err = l.Wait(ctx, "k")
			assert.Nil(t, s)
			assert.ErrorIs(t, err, core.ErrInvalidConfig)
			assert.ErrorIs(t, l.Check(ctx), core.ErrInvalidConfig)
			assert.Zero(t, l.Waiting("k"))
			assert.Zero(t, l.Limit())
			assert.True(t, l.Stats().Down)
			assert.NoError(t, l.Close())
		}, "%#v", l)
	}
}
