package memusage_test

import (
	"context"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/internal/labelcap"
	"github.com/floodgate-go/floodgate/internal/memusage"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestByPolicy(t *testing.T) {
	var s memusage.Stores
	assert.Empty(t, s.ByPolicy(labelcap.Value))
	var lims []*core.Limiter
	take := func(ms *core.MemoryStore, policy string, keys ...string) {
		l, err := core.NewLimiter(core.MustPolicy(policy, core.Limit{Name: policy, Algorithm: core.GCRA{Rate: core.PerHour(1), Burst: 2}}),
			core.WithStore(ms), core.WithClock(coretest.NewClock(coretest.T0)))
		require.NoError(t, err)
		for _, k := range keys {
			_, err := l.Allow(context.Background(), k)
			require.NoError(t, err)
		}
		lims = append(lims, l)
	}
	for range 2 {
		ms, err := core.NewMemoryStore(core.MemoryOptions{MaxKeys: 64, Shards: 1})
		require.NoError(t, err)
		s.Watch(ms)
		s.Watch(ms) // once
		take(ms, "a", "x", "y")
		take(ms, "b", "x")
	}
	s.Watch(nil)
	assert.Equal(t, []core.MemoryUsage{{Policy: "a", Keys: 4, MaxKeys: 128}, {Policy: "b", Keys: 2, MaxKeys: 128}}, s.ByPolicy(labelcap.Value))
	assert.Len(t, lims, 4)
}
