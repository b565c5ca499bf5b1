package core_test

import (
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/require"
)

func TestMemoryStoreConformance(t *testing.T) {
	t.Parallel()
	coretest.Run(t, func(t *testing.T) core.Store {
		s, err := core.NewMemoryStore(core.MemoryOptions{})
		require.NoError(t, err)
		return s
	})
}

func TestMemoryStoreConformanceTinyShards(t *testing.T) {
	t.Parallel()
	coretest.Run(t, func(t *testing.T) core.Store {
		s, err := core.NewMemoryStore(core.MemoryOptions{MaxKeys: 64, Shards: 1})
		require.NoError(t, err)
		return s
	})
}
