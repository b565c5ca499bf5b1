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

func leaky(t *testing.T) *core.Limiter {
	t.Helper()
	p, err := core.Single("shaped", core.LeakyBucket{Rate: core.PerSecond(1), Capacity: 10})
	require.NoError(t, err)
	l, err := core.NewLimiter(p, core.WithClock(coretest.NewClock(instant().Add(5*time.Second))))
	require.NoError(t, err)
	return l
}

// A Pair whose parts delay differently showed the Result of the part
// delaying longest, Remaining and all: a shaped route (8 left) and a
// route of 2 an hour, both admitting a request, had its client told 8
// remained when the next request would be denied. The Pair now shows the
// part with the least Remaining, delayed as long as the longest delay
// (the wait every part's shaping asks), as one limiter of several limits
// does.
func TestAttackPairShowsADelayedPartsRemaining(t *testing.T) {
	ctx := context.Background()
	s, f := leaky(t), fixed(t, 2)
	for i := range 2 {
		p := pair(t, s, "s", f, "f")
		res, err := p.AllowN(ctx, "k", 1)
		require.NoError(t, err)
		require.True(t, res.Allowed)
		assert.Equal(t, int64(1-i), res.Remaining, "request %d: the route of 2 an hour binds", i)
		assert.Equal(t, time.Duration(i)*time.Second, res.Delay, "request %d: the shaped route's wait", i)
	}
	res, err := pair(t, s, "s", f, "f").AllowN(ctx, "k", 1)
	require.NoError(t, err)
	assert.False(t, res.Allowed, "told 0 remained")
}

// Under a MaxDelay (core.WithMaxDelay) that a part's delay passes, the
// Pair gives every part back and denies the request, as that part.
func TestPairDeniesADelayPastMaxDelay(t *testing.T) {
	ctx := core.WithMaxDelay(context.Background(), 500*time.Millisecond)
	s, f := leaky(t), fixed(t, 5)
	res, err := pair(t, s, "s", f, "f").AllowN(ctx, "k", 1)
	require.NoError(t, err)
	require.True(t, res.Allowed)
	res, err = pair(t, s, "s", f, "f").AllowN(ctx, "k", 1)
	require.NoError(t, err)
	assert.False(t, res.Allowed)
	assert.Equal(t, 500*time.Millisecond, res.RetryAfter)
	assert.Equal(t, int64(4), remaining(t, f, "1:fk"), "given back")
}
