package core_test

import (
	"context"
	"time"

	"github.com/stretchr/testify/assert"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/require"
)

// memStores returns a new memory store of opts for each call.
func memStores(opts core.MemoryOptions) coretest.NewStore {
	return func(t *testing.T) core.Store {
		s, err := core.NewMemoryStore(opts)
		require.NoError(t, err)
		return s
	}
}

func TestMemoryStorePolicyChange(t *testing.T) {
	t.Parallel()
	coretest.RunPolicyChange(t, memStores(core.MemoryOptions{}))
}

func TestMemoryStorePolicyChangeTinyShards(t *testing.T) {
	t.Parallel()
	coretest.RunPolicyChange(t, memStores(core.MemoryOptions{MaxKeys: 64, Shards: 1}))
}

// TestTokenBucketChangeKeepsTokens: the tokens a key holds are read as they
// stand under a raised burst, and capped at a lowered one; a key never seen
// gets the new burst (the table's encoding of a full bucket differs from
// the new burst's: see recode.go).
func TestTokenBucketChangeKeepsTokens(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := coretest.NewClock(coretest.T0)
	p := core.MustPolicy("api", core.Limit{Name: "burst", Algorithm: core.TokenBucket{Rate: core.PerMinute(1), Burst: 5}})
	l, err := core.NewLimiter(p, core.WithClock(clk))
	require.NoError(t, err)
	for range 3 {
		r, err := l.Allow(ctx, "k")
		require.NoError(t, err)
		require.True(t, r.Allowed)
	}
	count := func(key string) int {
		n := 0
		for range 100 {
			r, err := l.Peek(ctx, key, int64(n+1))
			require.NoError(t, err)
			if !r.Allowed {
				break
			}
			n++
		}
		return n
	}
	raised := core.MustPolicy("api", core.Limit{Name: "burst", Algorithm: core.TokenBucket{Rate: core.PerMinute(1), Burst: 10}})
	require.NoError(t, l.SetPolicy(raised))
	assert.Equal(t, 2, count("k"), "the two tokens left, not the new burst")
	assert.Equal(t, 10, count("new"), "a key never seen: the new burst")
	lowered := core.MustPolicy("api", core.Limit{Name: "burst", Algorithm: core.TokenBucket{Rate: core.PerMinute(1), Burst: 1}})
	require.NoError(t, l.SetPolicy(lowered))
	assert.Equal(t, 1, count("k"), "two tokens capped at the new burst")
	assert.Equal(t, 1, count("new"))
	clk.Advance(time.Hour)
	assert.Equal(t, 1, count("k"), "refilled up to the new burst only")
}

func TestMemoryStoreOverrides(t *testing.T) {
	t.Parallel()
	coretest.RunOverrides(t, memStores(core.MemoryOptions{}))
}

// TestCheckPolicy: CheckPolicy answers as SetPolicy would for what a
// policy changes, and changes nothing.
func TestCheckPolicy(t *testing.T) {
	t.Parallel()
	clk := coretest.NewClock(coretest.T0)
	hourly := func(n int64, w time.Duration) *core.Policy {
		return core.MustPolicy("api", core.Limit{Name: "hour", Algorithm: core.FixedWindow{Quota: n, Window: w}})
	}
	l, err := core.NewLimiter(hourly(2, time.Hour), core.WithClock(clk))
	require.NoError(t, err)
	require.ErrorIs(t, l.CheckPolicy(nil), core.ErrInvalidConfig)
	require.ErrorIs(t, l.CheckPolicy(hourly(5, time.Minute)), core.ErrPolicyChange)
	require.ErrorIs(t, l.CheckPolicy(core.MustPolicy("other", core.Limit{Name: "hour", Algorithm: core.FixedWindow{Quota: 5, Window: time.Hour}})), core.ErrPolicyChange)
	require.NoError(t, l.CheckPolicy(hourly(5, time.Hour)))
	var zero *core.Limiter
	require.Error(t, zero.CheckPolicy(hourly(5, time.Hour)))
	// Checked, not applied: the limit is still 2.
	admitted := 0
	for range 5 {
		r, err := l.Allow(context.Background(), "k")
		require.NoError(t, err)
		if r.Allowed {
			admitted++
		}
	}
	require.Equal(t, 2, admitted)
}
