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

// A route spent for a minute (a) is charged with one that admits (b, 100
// an hour): the first denial peeks b, which admits, and keeps "b admits
// now" beside a's hint. b's key is then spent by requests charged on it
// alone (its own spelling). The denials by a that followed read the kept
// instant and told a's wait (58 s) where b denies until its hour ends,
// at 04:00 (55 min 58 s): a client retrying then was denied again. A
// kept instant is read for a second (as flooding denials come) and then
// found again.
func TestAttackPairKeptWaitGoesStale(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := coretest.NewClock(instant())
	a := oneInWindow(t, clk, time.Minute)
	b, err := core.NewLimiter(core.MustPolicy("p", core.Limit{Name: "p",
		Algorithm: core.FixedWindow{Quota: 100, Window: time.Hour}}), core.WithClock(clk))
	require.NoError(t, err)
	_, err = a.AllowN(ctx, "1:ak", 1)
	require.NoError(t, err)
	res, err := pair(t, a, "a", b, "b").AllowN(ctx, "k", 1)
	require.NoError(t, err)
	require.False(t, res.Allowed)
	assert.Equal(t, time.Minute, res.RetryAfter, "b admits: a's wait")
	spent, err := b.AllowN(ctx, "1:bk", 100)
	require.NoError(t, err)
	require.True(t, spent.Allowed)
	clk.Advance(2 * time.Second)
	res, err = pair(t, a, "a", b, "b").AllowN(ctx, "k", 1)
	require.NoError(t, err)
	require.False(t, res.Allowed)
	assert.Equal(t, 55*time.Minute+58*time.Second, res.RetryAfter, "b spent since: its wait, to 04:00")
}
