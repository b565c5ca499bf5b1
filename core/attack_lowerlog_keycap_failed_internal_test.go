package core

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLowerLogKeyCapFailedRefunds: the same, with refunds failing (stores
// other than the in-memory one): a failed refund may be made by the store
// at any time, and is counted against every take of its key while it is
// remembered. The key cap forgot a key's failed refunds once more than
// 3/4 of its list had failed, raising its floor to the takes numbered so
// far only: a take decided after that counted none of them, and gave back
// more than the log as it was, and more than one that forgets nothing but
// by its window (400 and 92 of 16,000 moves on seeds 1 and 2, 85% of the
// refunds failing). On a small shard (seed 0, a bound of 1,500) the
// shard's own forgetOlder forgets failed refunds too, as it did: with 85%
// failing, old and new alike gave more than the ideal log (984 and 703
// moves), at instants that differ (the key cap changes when the shard
// fills). Seed 0 runs with 20% failing, and is not compared.
func TestLowerLogKeyCapFailedRefunds(t *testing.T) {
	t.Parallel()
	for _, seed := range raceSeeds(3) {
		for _, failPct := range []int{20 + 65*int(min(seed, 1))} { // 20%, then 85%
			perShard := []int{1500, 4096, 20_000}[seed%3]
			st := runKeyCapDiff(seed, perShard, failPct, false)
			t.Logf("seed %d perShard %d failPct %d: %+v", seed, perShard, failPct, st)
			if perShard >= 2*lowerKeyCap {
				require.Zero(t, st.oldMoreThanIdeal, "seed %d failPct %d: the old log, on a big shard", seed, failPct)
				require.Zero(t, st.moreThanIdeal, "seed %d failPct %d: %s", seed, failPct, st.firstMore)
			}
		}
	}
}

// TestLowerLogKeyCapKeepsFailedRefunds: a key whose list reaches
// lowerKeyCap with most of its refunds failed keeps those: a take of the
// key decided after the cap forgot its oldest refunds still counts each
// failed one (the store may make it after the take).
func TestLowerLogKeyCapKeepsFailedRefunds(t *testing.T) {
	t.Parallel()
	const perShard, window = 4 * lowerKeyCap, 1 << 20
	var sh lowerShard
	var until [MaxLimits]int64
	until[0] = 1 << 40
	seq := uint64(0)
	for i := range lowerKeyCap + 1 {
		seq++
		e := lowering{pos: seq, tmark: seq, at: int64(i), until: until, shift: [MaxLimits]int64{1}}
		if i%8 != 0 { // 7 of 8 failed
			e.pos = failedPos
		}
		sh.seq.Store(seq)
		sh.record(1, e, window, perShard)
	}
	failed, want := 0, 0
	for i := range lowerKeyCap + 1 {
		if i%8 != 0 {
			want++
		}
	}
	for _, e := range sh.keys[1] {
		if e.pos == failedPos {
			failed++
		}
	}
	assert.Equal(t, want, failed, "every failed refund kept")
	shift, ok := sh.moved(1, seq+1, noHi, 1<<30, &until)
	require.True(t, ok, "a take after the cap forgot")
	assert.GreaterOrEqual(t, shift[0], int64(failed), "moved by each failed refund, which the store may make after it")
	assert.LessOrEqual(t, len(sh.keys[1]), lowerKeyCap+1, "only the refunds that did not fail forgotten")
}
