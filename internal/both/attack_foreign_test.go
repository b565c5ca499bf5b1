package both_test

import (
	"context"
	"sync"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// counter is a limiter of another package than core: its Results cannot
// say Taken (a field of core's), yet its admissions take a unit, which
// Refund gives back.
type counter struct {
	mu    sync.Mutex
	quota int64
	used  map[string]int64
}

func (c *counter) AllowN(_ context.Context, key string, cost int64) (core.Result, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.used[key]+cost > c.quota {
		return core.Result{Allowed: false, RetryAfter: 1}, nil
	}
	c.used[key] += cost
	return core.Result{Allowed: true, Cost: cost, Remaining: c.quota - c.used[key]}, nil
}

func (c *counter) Refund(_ context.Context, key string, taken core.Result) (core.Result, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !taken.Allowed {
		return core.Result{}, core.ErrNotTaken
	}
	c.used[key] -= taken.Cost
	return core.Result{Allowed: true, Remaining: c.quota - c.used[key]}, nil
}

// A Pair gave back only the parts whose Result says Taken: a limiter of
// another package (which cannot say it) kept the unit of a request that
// another part denied, or that the caller refunded (CountIf), as it
// alone never does: 1 of 1 spent by a request never served. Every
// admitting part is now given back, once.
func TestAttackPairKeepsAForeignPartsUnit(t *testing.T) {
	ctx := context.Background()
	c, f := &counter{quota: 1, used: map[string]int64{}}, fixed(t, 1)

	// Refunded by its caller.
	p := pair(t, c, "c", f, "f")
	res, err := p.AllowN(ctx, "k", 1)
	require.NoError(t, err)
	require.True(t, res.Allowed)
	_, err = p.Refund(ctx, "k", res)
	require.NoError(t, err)
	assert.Equal(t, int64(0), c.used["1:ck"], "the caller's refund")
	_, _ = p.Refund(ctx, "k", res)
	assert.Equal(t, int64(0), c.used["1:ck"], "given back once")

	// Denied by the other part.
	c2, f2 := &counter{quota: 5, used: map[string]int64{}}, fixed(t, 1)
	res, err = pair(t, c2, "c", f2, "f").AllowN(ctx, "k", 1)
	require.NoError(t, err)
	require.True(t, res.Allowed)
	res, err = pair(t, c2, "c", f2, "f").AllowN(ctx, "k", 1)
	require.NoError(t, err)
	require.False(t, res.Allowed)
	assert.Equal(t, int64(1), c2.used["1:ck"], "the denied request's unit given back")
}
