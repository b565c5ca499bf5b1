package both_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A request charged on two routes, each of one request per window: the
// first route's window is 10 s, the second's a minute. Once both are
// spent, the first denies the next request (for 10 s) and the second is
// not asked: RetryAfter was 10 s, and a client retrying then was denied by
// the second route for 50 s more. It is now the wait until every route
// admits, 60 s, on the first denial and on those that follow it, when the
// first route, remembered as denying, is asked alone.
func TestAttackPairDenialWaitsForEveryPart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := coretest.NewClock(instant())
	lim := func(w time.Duration) *core.Limiter { return oneInWindow(t, clk, w) }
	short, long := lim(10*time.Second), lim(time.Minute)
	res, err := pair(t, short, "a", long, "b").AllowN(ctx, "k", 1)
	require.NoError(t, err)
	require.True(t, res.Allowed)
	clk.Advance(time.Second)
	for i, want := range []time.Duration{59 * time.Second, 58 * time.Second} {
		res, err = pair(t, short, "a", long, "b").AllowN(ctx, "k", 1)
		require.NoError(t, err)
		require.False(t, res.Allowed)
		assert.Equal(t, want, res.RetryAfter, "denial %d: the second route's wait, the longer", i+1)
		clk.Advance(time.Second)
	}
	clk.Advance(57 * time.Second)
	res, err = pair(t, short, "a", long, "b").AllowN(ctx, "k", 1)
	require.NoError(t, err)
	assert.True(t, res.Allowed, "at RetryAfter")
}

// peekCounter is a core.Limiter counting its peeks.
type peekCounter struct {
	*core.Limiter
	peeks int
}

func (c *peekCounter) Peek(ctx context.Context, key string, cost int64) (core.Result, error) {
	c.peeks++
	return c.Limiter.Peek(ctx, key, cost)
}

// Waiting for every part must not undo what the denial hints spare: a
// client flooding a spent route in a spelling charged on two routes costs
// one call of the denying limiter a request, not a peek of the other
// route each (one peek, on the first denial).
func TestAttackPairDenialFloodPeeksOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := coretest.NewClock(instant())
	lim := func(w time.Duration) *core.Limiter { return oneInWindow(t, clk, w) }
	spent, other := lim(time.Minute), &peekCounter{Limiter: lim(time.Hour)}
	_, err := spent.AllowN(ctx, "1:ak", 1)
	require.NoError(t, err)
	for range 20 {
		res, err := pair(t, spent, "a", other, "b").AllowN(ctx, "k", 1)
		require.NoError(t, err)
		require.False(t, res.Allowed)
	}
	assert.Equal(t, 1, other.peeks)
}

// A Pair peeks every part: the wait of a request charged on two routes,
// spent, is the longer route's (a middleware around one asks it, to tell
// a refusal inside how long its retry waits).
func TestPairPeekWaitsForEveryPart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := coretest.NewClock(instant())
	lim := func(w time.Duration) *core.Limiter { return oneInWindow(t, clk, w) }
	p := pair(t, lim(10*time.Second), "a", lim(time.Minute), "b")
	res, err := p.Peek(ctx, "k", 1)
	require.NoError(t, err)
	assert.True(t, res.Allowed)
	_, err = p.AllowN(ctx, "k", 1)
	require.NoError(t, err)
	res, err = p.Peek(ctx, "k", 1)
	require.NoError(t, err)
	assert.False(t, res.Allowed)
	assert.Equal(t, time.Minute, res.RetryAfter)
}

// oneInWindow is a limiter on clk admitting one request a window of w.
func oneInWindow(t *testing.T, clk core.Clock, w time.Duration) *core.Limiter {
	t.Helper()
	l, err := core.NewLimiter(core.MustPolicy("p", core.Limit{Name: "p",
		Algorithm: core.FixedWindow{Quota: 1, Window: w}}), core.WithClock(clk))
	require.NoError(t, err)
	return l
}
