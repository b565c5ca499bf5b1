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

// TestAttackRefundLogFloodRefusesOtherKeysRefunds: the refund log (see
// lowerlog.go) keeps a bounded number of refunds per shard; when a shard
// was full it forgot every refund it held and refused the span refunds of
// every take positioned before the latest of them, whatever its key. A
// client refunding its own takes (a route that refunds successes) thus
// made the refunds of every other key of the shard give nothing back,
// once per shard's bound of its refunds: 256 a shard here, a victim whose
// take and refund had 100 of the flood's refunds between them lost its
// refund 39 times in 100. The log now forgets the older half of its
// refunds by position: a take is refused only when about half the bound
// of refunds were made in its shard between it and its refund.
func TestAttackRefundLogFloodRefusesOtherKeysRefunds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// 10 a second, burst 100: a victim's take of 50 holds 5 s; a flood
	// take of 1 holds 100 ms, so that the ledger (16 a shard) never fills.
	p := core.MustPolicy("p", core.Limit{Name: "l", Algorithm: core.GCRA{Rate: core.PerSecond(10), Burst: 100}})
	ms, err := core.NewMemoryStore(core.MemoryOptions{Shards: 1, MaxKeys: 1 << 16})
	require.NoError(t, err)
	clk := coretest.NewClock(t0)
	// One shard: the log holds 256 refunds.
	l, err := core.NewLimiter(p, core.WithStore(ms), core.WithClock(clk), core.WithRefundLedger(256, time.Minute))
	require.NoError(t, err)
	n, lost := 0, 0
	for v := range 100 {
		victim := fmt.Sprint("victim-", v)
		var r core.Result
		require.NoError(t, l.Take(ctx, victim, 50, &r))
		require.True(t, r.Allowed)
		for range 100 {
			key := fmt.Sprint("flood-", n)
			n++
			f, err := l.Allow(ctx, key)
			require.NoError(t, err)
			_, err = l.Refund(ctx, key, f)
			require.NoError(t, err)
			clk.Advance(10 * time.Millisecond)
		}
		back, err := l.Refund(ctx, victim, r)
		require.NoError(t, err)
		if back.Remaining < 99 {
			lost++
		}
	}
	assert.Zero(t, lost, "victims' refunds that gave nothing back, with 100 flood refunds between each take and its refund")
}
