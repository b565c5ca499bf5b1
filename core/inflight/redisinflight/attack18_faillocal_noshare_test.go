package redisinflight_test

import (
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/inflight/redisinflight"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackFailLocalNeedsLocalShare: FailLocal with LocalShare left 0 was
// read as a share of 1, so that each of N processes held up to the whole
// limit of slots while Redis was down (N times the limit). New refuses
// it, as redisstore.New does, naming the option and what to set; an
// explicit share of 1 (a single process) is accepted.
func TestAttackFailLocalNeedsLocalShare(t *testing.T) {
	t.Parallel()
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	t.Cleanup(func() { _ = c.Close() })

	_, err := redisinflight.New(c, 10, redisinflight.Options{FailureMode: redisstore.FailLocal})
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "LocalShare")
	assert.Contains(t, err.Error(), "1/N for N processes; 1 for a single process")

	for _, o := range []redisinflight.Options{
		{FailureMode: redisstore.FailLocal, LocalShare: 1},
		{FailureMode: redisstore.FailLocal, LocalShare: 0.25},
		{FailureMode: redisstore.FailClosed}, // no local limiter: no share needed
	} {
		l, err := redisinflight.New(c, 10, o)
		require.NoError(t, err, "%v", o.FailureMode)
		require.NoError(t, l.Close())
	}
}
