package core_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stateBytes is what one key's slot holds in a memory table: its hash and
// its state words.
func stateBytes(p *core.Policy) int { return 8 * (1 + p.StateWords()) }

// A memory store left at its default bound keeps at most
// DefaultMaxStateBytes of state per policy, whatever the state's size: a
// SlidingLog of quota 65,536 keeps 512 KiB per key, and the default
// 1,048,576 keys let a flood of distinct clients grow its table towards
// 512 GiB (2,000 client addresses: 1.5 GiB of heap). Small states keep
// the default number of keys, and an explicit MaxKeys is kept as given.
func TestAttackKeyFloodStateMemoryBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ms, err := core.NewMemoryStore(core.MemoryOptions{})
	require.NoError(t, err)
	clk := coretest.NewClock(time.Unix(1_700_000_000, 0))
	big := core.MustPolicy("big", core.Limit{Name: "log", Algorithm: core.SlidingLog{Quota: 1 << 16, Window: time.Hour}})
	small := core.MustPolicy("small", core.Limit{Name: "gcra", Algorithm: core.GCRA{Rate: core.PerMinute(10)}},
		core.Limit{Name: "backoff", Algorithm: core.Backoff{Free: 5}})
	lb, err := core.NewLimiter(big, core.WithStore(ms), core.WithClock(clk))
	require.NoError(t, err)
	ls, err := core.NewLimiter(small, core.WithStore(ms), core.WithClock(clk))
	require.NoError(t, err)

	for i := range 2000 {
		key := "198.51." + strconv.Itoa(i/256) + "." + strconv.Itoa(i%256)
		r, err := lb.Allow(ctx, key)
		require.NoError(t, err)
		require.True(t, r.Allowed, "a new key is decided as a key never seen")
		_, err = ls.Allow(ctx, key)
		require.NoError(t, err)
	}
	usage := ms.AppendUsage(nil)
	require.Len(t, usage, 2)
	for _, u := range usage {
		p := big
		if u.Policy == small.Name() {
			p = small
		}
		assert.LessOrEqual(t, u.Keys, u.MaxKeys, u.Policy)
		assert.LessOrEqual(t, u.MaxKeys*stateBytes(p), core.DefaultMaxStateBytes,
			"%s: %d keys of %d bytes", u.Policy, u.MaxKeys, stateBytes(p))
		if p == small {
			assert.Equal(t, core.DefaultMaxKeys, u.MaxKeys, "small states keep the default number of keys")
		}
	}

	// An explicit MaxKeys is the operator's bound, as given.
	ms2, err := core.NewMemoryStore(core.MemoryOptions{MaxKeys: 4096})
	require.NoError(t, err)
	_, err = core.NewLimiter(big, core.WithStore(ms2))
	require.NoError(t, err)
	assert.Equal(t, 4096, ms2.AppendUsage(nil)[0].MaxKeys)
}
