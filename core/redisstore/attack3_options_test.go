package redisstore_test

import (
	"math"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackNewRefusesHugeBatchOptions: MaxBatch and Pipelines size the
// store's queue (MaxBatch × Pipelines calls) and its workers (Pipelines
// goroutines, a batch of MaxBatch each), allocated by New: values past
// any use are refused with core.ErrInvalidConfig, not a panic of New
// (makechan: size out of range) or an allocation of gigabytes.
func TestAttackNewRefusesHugeBatchOptions(t *testing.T) {
	t.Parallel()
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	t.Cleanup(func() { _ = c.Close() })
	for name, o := range map[string]redisstore.Options{
		"MaxBatch":           {MaxBatch: math.MaxInt},
		"Pipelines":          {Pipelines: math.MaxInt},
		"MaxBatch×Pipelines": {MaxBatch: math.MaxInt/8 + 1},
	} {
		var err error
		if assert.NotPanics(t, func() { _, err = redisstore.New(c, o) }, name) {
			assert.ErrorIs(t, err, core.ErrInvalidConfig, name)
		}
	}
	s, err := redisstore.New(c, redisstore.Options{MaxBatch: 4096, Pipelines: 1024})
	require.NoError(t, err, "the largest accepted")
	require.NoError(t, s.Close())
}
