package core_test

import (
	"context"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// takeAll takes cost 1 for key until denied (at most 100 times) and
// returns the admitted Results.
func takeAll(t *testing.T, l *core.Limiter, key string) []core.Result {
	t.Helper()
	var out []core.Result
	for range 100 {
		r, err := l.Allow(context.Background(), key)
		require.NoError(t, err)
		if !r.Allowed {
			return out
		}
		out = append(out, r)
	}
	t.Fatalf("key %s: still admitted after 100 takes", key)
	return nil
}

// TestAttackRefundAfterEviction: a key held at its limit is forgotten by a
// full store (EvictCheapest), comes back as a new key and takes its limit
// again (what forgetting admits, the documented bound), and then refunds
// the takes of its former entry. Those refunds must give nothing back: the
// entry that held them is gone, as after a Reset. Otherwise every refund
// of the forgotten entry is admitted once more, beyond the bound.
func TestAttackRefundAfterForgetting(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, lim := range coretest.Algorithms() {
		t.Run(lim.Name, func(t *testing.T) {
			p, err := core.NewPolicy("p", lim)
			require.NoError(t, err)
			ms, err := core.NewMemoryStore(core.MemoryOptions{MaxKeys: 1, Shards: 1})
			require.NoError(t, err)
			clk := coretest.NewClock(t0)
			l, err := core.NewLimiter(p, core.WithStore(ms), core.WithClock(clk), core.WithRefundLedger(0, anyAge))
			require.NoError(t, err)

			first := takeAll(t, l, "victim")
			require.NotEmpty(t, first)
			// Another key takes the only slot: the victim is forgotten.
			r, err := l.Allow(ctx, "flood")
			require.NoError(t, err)
			require.True(t, r.Allowed)
			// The victim comes back as a new key (forgetting the flood key)
			// and takes what a new key may.
			second := takeAll(t, l, "victim")
			require.Len(t, second, len(first), "a forgotten key is decided as a new one")
			for _, r := range first {
				_, err := l.Refund(ctx, "victim", r)
				require.NoError(t, err)
			}
			assert.Zero(t, len(takeAll(t, l, "victim")),
				"refunds of a forgotten entry's takes gave units back to its successor")
		})
	}
}
