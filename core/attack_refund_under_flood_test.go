package core_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttackRefundNotLostToAFlood: a flood of new keys into a full memory
// store evicts other keys, and the store remembers the evicted ones (a
// bounded log per shard) so that a refund of a take made before its key's
// eviction gives nothing back. When that log overflowed it forgot every
// mark and refused the refund of every take the shard had decided before,
// evicted or not: 4 in 100 refunds of keys never evicted gave nothing back
// with 1,000 flood requests between the take and the refund (MaxKeys
// 4,096), 19 in 100 with 4,000; the login guard's refund of each
// successful login is such a refund. A key's refund is now refused only
// when its own key was evicted, or when about half the log's bound of
// keys (128 per shard here: 8,192 in all) were evicted from its shard
// between its take and its refund. For the word mode (GCRA) and the
// locked mode (Backoff, as the login guard's counters).
func TestAttackRefundNotLostToAFlood(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, lim := range []core.Limit{
		{Name: "gcra", Algorithm: core.GCRA{Rate: core.PerMinute(10), Burst: 10}},
		{Name: "backoff", Algorithm: core.Backoff{Free: 10, Window: time.Hour, Base: time.Second, Max: time.Hour}},
	} {
		t.Run(lim.Name, func(t *testing.T) {
			t.Parallel()
			for _, flood := range []int{1000, 4000} {
				ms, err := core.NewMemoryStore(core.MemoryOptions{MaxKeys: 4096})
				require.NoError(t, err)
				clk := coretest.NewClock(t0)
				l, err := core.NewLimiter(core.MustPolicy("p", lim), core.WithStore(ms), core.WithClock(clk))
				require.NoError(t, err)
				fresh, err := l.Peek(ctx, "never seen", 1)
				require.NoError(t, err)
				n, lost := 0, 0
				for v := range 100 {
					key := fmt.Sprint("user-", v)
					r, err := l.Allow(ctx, key)
					require.NoError(t, err)
					require.True(t, r.Allowed)
					for range flood {
						// require only on an error: its t.Helper cost more
						// than the decision, a million times.
						if _, err := l.Allow(ctx, "flood-"+strconv.Itoa(n)); err != nil {
							require.NoError(t, err)
						}
						n++
					}
					clk.Advance(time.Millisecond)
					_, err = l.Refund(ctx, key, r)
					require.NoError(t, err)
					// Refunded, or forgotten by the flood: either way
					// decided as a key never seen.
					p, err := l.Peek(ctx, key, 1)
					require.NoError(t, err)
					if p.Remaining < fresh.Remaining {
						lost++
					}
				}
				assert.Zero(t, lost, "%d flood requests between each take and its refund: refunds that gave nothing back", flood)
			}
		})
	}
}
