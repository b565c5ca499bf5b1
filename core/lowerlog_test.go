package core_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRefundLogForgetsSafely: a limiter's log of refunds (see lowerlog.go)
// holds its share of the refund ledger's capacity per shard; when a shard
// fills, it forgets, and a take made before then gives nothing back (it
// cannot know what the forgotten refunds moved), where with room it gives
// its cost back. Refunds of the later takes themselves are unaffected.
func TestRefundLogForgetsSafely(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	p := core.MustPolicy("p", core.Limit{Name: "l", Algorithm: core.GCRA{Rate: core.PerMinute(10), Burst: 10}})
	for _, capacity := range []int{64, 1 << 20} { // 1 and 16,384 entries a shard
		clk := coretest.NewClock(t0)
		l, err := core.NewLimiter(p, core.WithClock(clk), core.WithRefundLedger(capacity, time.Minute))
		require.NoError(t, err)
		b, err := l.Allow(ctx, "k")
		require.NoError(t, err)
		clk.Advance(time.Second)
		for range 2 { // the second refund fills a shard of 1 entry
			x, err := l.Allow(ctx, "k")
			require.NoError(t, err)
			r, err := l.Refund(ctx, "k", x)
			require.NoError(t, err)
			assert.Equal(t, int64(8), r.Remaining, "the later take's refund gives its unit back (capacity %d): B's left, and the peek's", capacity)
		}
		r, err := l.Refund(ctx, "k", b)
		require.NoError(t, err)
		if capacity == 64 {
			assert.Equal(t, int64(8), r.Remaining, "forgotten: the earlier take gives nothing back")
		} else {
			assert.Equal(t, int64(9), r.Remaining, "remembered: the earlier take gives its unit back")
		}
	}
}
