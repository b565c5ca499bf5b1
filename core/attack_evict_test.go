package core_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/require"
)

// TestAttackRefundAfterEviction: a take made before its key was evicted
// from a full memory store gives nothing back to the entry the key was
// given afresh. Before the fix the refund landed in the new entry: the key
// got 7 requests through a limit of 5 (1, then 5 after the eviction forgot
// that 1, then 1 more from the refund), beyond the eviction's own bound
// (the 1 it forgot). A refund of a take made after the eviction still
// gives back.
func TestAttackRefundAfterEviction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	algs := []core.Algorithm{
		core.FixedWindow{Quota: 5, Window: time.Hour},
		core.SlidingWindow{Quota: 5, Window: time.Hour},
		core.TokenBucket{Rate: core.PerHour(5)},
		core.GCRA{Rate: core.PerHour(5)},
		core.LeakyBucket{Rate: core.PerHour(5)},
		core.SlidingLog{Quota: 5, Window: time.Hour},
	}
	for _, alg := range algs {
		t.Run(fmt.Sprintf("%T", alg), func(t *testing.T) {
			clk := coretest.NewClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
			ms, err := core.NewMemoryStore(core.MemoryOptions{MaxKeys: 16, Shards: 1})
			require.NoError(t, err)
			p, err := core.Single("x", alg)
			require.NoError(t, err)
			l, err := core.NewLimiter(p, core.WithStore(ms), core.WithClock(clk))
			require.NoError(t, err)
			first, err := l.Allow(ctx, "A")
			require.NoError(t, err)
			require.True(t, first.Allowed)
			// A flood of exhausted keys: A, holding least, is evicted.
			for i := range 64 {
				for range 5 {
					_, err := l.Allow(ctx, "k"+strconv.Itoa(i))
					require.NoError(t, err)
				}
			}
			n := 1
			var last core.Result
			for range 10 {
				r, err := l.Allow(ctx, "A")
				require.NoError(t, err)
				if r.Allowed {
					n++
					last = r
				}
			}
			require.Equal(t, 6, n, "A was evicted: it may get what the eviction forgot (1) past its limit, no more")
			_, err = l.Refund(ctx, "A", first)
			require.NoError(t, err)
			r, err := l.Allow(ctx, "A")
			require.NoError(t, err)
			require.False(t, r.Allowed, "the refund of a take made before the eviction gave back into the new entry")
			_, err = l.Refund(ctx, "A", last)
			require.NoError(t, err)
			r, err = l.Allow(ctx, "A")
			require.NoError(t, err)
			require.True(t, r.Allowed, "a take made after the eviction is refunded")
		})
	}
}
