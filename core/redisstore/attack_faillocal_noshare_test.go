package redisstore_test

import (
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackFailLocalNeedsLocalShare: FailLocal with LocalShare left 0 was
// read as a share of 1, so that each of N processes granted the whole limit
// while Redis was down (N times the limit), the silent default of a copied
// snippet. New refuses it, as a configuration file refuses
// failure_mode: local without local_share, naming the option and what to
// set; an explicit share of 1 (a single process) is accepted.
func TestAttackFailLocalNeedsLocalShare(t *testing.T) {
	t.Parallel()
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	t.Cleanup(func() { _ = c.Close() })

	_, err := redisstore.New(c, redisstore.Options{FailureMode: redisstore.FailLocal})
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	assert.Contains(t, err.Error(), "LocalShare")
	assert.Contains(t, err.Error(), "1/N for N processes; 1 for a single process")

	for _, o := range []redisstore.Options{
		{FailureMode: redisstore.FailLocal, LocalShare: 1},
		{FailureMode: redisstore.FailLocal, LocalShare: 0.25},
		{FailureMode: redisstore.FailClosed}, // no local limiter: no share needed
		{FailureMode: redisstore.FailOpen},
	} {
		s, err := redisstore.New(c, o)
		require.NoError(t, err, "%+v", o)
		require.NoError(t, s.Close())
	}
}
