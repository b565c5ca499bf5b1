package core

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestAttackRefundLedgerFullRescans: a full ledger shard made room by
// looking at every entry it held for the expired ones, once for each
// instant one expired. A client whose refunds arrive about as fast as
// their entries expire (refund window × refund rate near the ledger's
// capacity: a route refunding its successes) had each refund scan its
// whole shard under the shard's lock, which every refund of every key of
// the shard waits for: 8,000 refunds here, on shards of 128 entries,
// looked at 159,232 entries, 20 a refund, a number growing with the shard
// (a default ledger's holds 65,536). The entries are now also kept in
// order of expiry, and only those that go are looked at: 5,261, fewer
// than one a refund.
func TestAttackRefundLedgerFullRescans(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := &idleClock{time.Unix(1_000_000, 0)}
	p := MustPolicy("p", Limit{Algorithm: FixedWindow{Quota: 1 << 40, Window: 24 * time.Hour}})
	const capacity, step = 16 * 128, time.Millisecond
	// Entries live capacity steps: each shard is about full.
	l, err := NewLimiter(p, WithClock(clk), WithRefundLedger(capacity, (capacity+128)*step))
	require.NoError(t, err)
	const refunds = 8_000
	done := 0
	for i := range refunds {
		clk.t = clk.t.Add(step)
		key := strconv.Itoa(i)
		res, err := l.Allow(ctx, key)
		require.NoError(t, err)
		require.True(t, res.Allowed)
		if _, err := l.Refund(ctx, key, res); err == nil {
			done++
		} else {
			require.True(t, errors.Is(err, ErrRefundLedgerFull), "%v", err)
		}
	}
	visited, held := 0, 0
	for i := range l.ledger.shards {
		s := &l.ledger.shards[i]
		visited += s.visited
		held += len(s.spent)
		require.LessOrEqual(t, len(s.spent), l.ledger.perShard)
	}
	// The entries outlive the ledger's capacity a little (each shard about
	// full), and keys spread over the shards by a per-process hash seed:
	// a few percent of the refunds find their shard full (7% to 10%), a
	// share that varies from run to run. What is asserted is that the
	// ledger still accepts most, and above all what making room costs.
	require.Greater(t, done, refunds*3/4, "refunds accepted")
	require.Greater(t, held, capacity*3/4, "the ledger is about full")
	t.Logf("%d refunds accepted, %d entries looked at", done, visited)
	require.LessOrEqual(t, visited, refunds, "entries looked at to make room, for %d refunds", refunds)
}
