package core_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackRefundNotLostToResets: a limiter remembers the keys it reset
// within its refund window (a bounded log) so that a refund of a take made
// before its key's reset gives nothing back. When that log overflowed it
// forgot every key and refused the refund of every take made before the
// latest reset, whatever its key: a steady stream of resets of other keys
// (the login guard's ResetAccountOnSuccess at every successful login, 4,096
// a minute) refused, at each overflow, every refund then outstanding. A
// refund is now refused only when its own key was reset, or when about
// half the log's bound of resets (2,048) were made between its take and
// its refund.
func TestAttackRefundNotLostToResets(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := coretest.NewClock(t0)
	p := core.MustPolicy("p", core.Limit{Name: "g", Algorithm: core.GCRA{Rate: core.PerMinute(10), Burst: 10}})
	l, err := core.NewLimiter(p, core.WithClock(clk))
	require.NoError(t, err)
	reset := func(i int) {
		clk.Advance(time.Microsecond)
		_, err := l.Allow(ctx, fmt.Sprint("other-", i))
		require.NoError(t, err)
		require.NoError(t, l.Reset(ctx, fmt.Sprint("other-", i)))
	}
	fresh, err := l.Peek(ctx, "never seen", 1)
	require.NoError(t, err)
	n, refused := 0, 0
	for v := range 100 {
		key := fmt.Sprint("user-", v)
		r, err := l.Allow(ctx, key)
		require.NoError(t, err)
		for range 100 { // 100 resets of other keys during the request
			reset(n)
			n++
		}
		g, err := l.Refund(ctx, key, r)
		require.NoError(t, err)
		if g.Remaining < fresh.Remaining {
			refused++
		}
	}
	assert.Zero(t, refused, "refunds of keys never reset that gave nothing back (%d resets of other keys)", n)

	// A key reset after its takes: their refunds give nothing back, also
	// after the log has overflowed many times over since.
	var victim []core.Result
	for range 10 {
		r, err := l.Allow(ctx, "victim")
		require.NoError(t, err)
		victim = append(victim, r)
	}
	require.NoError(t, l.Reset(ctx, "victim"))
	for range 10 {
		r, err := l.Allow(ctx, "victim")
		require.NoError(t, err)
		require.True(t, r.Allowed)
	}
	for range 20_000 {
		reset(n)
		n++
	}
	for _, r := range victim {
		_, err := l.Refund(ctx, "victim", r)
		require.NoError(t, err)
	}
	r, err := l.Allow(ctx, "victim")
	require.NoError(t, err)
	assert.False(t, r.Allowed, "refunds of takes made before the key's reset gave units back")
}
