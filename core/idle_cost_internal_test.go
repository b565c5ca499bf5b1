package core

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// idleClock is a Clock set by hand, for core's internal tests.
type idleClock struct{ t time.Time }

func (c *idleClock) Now() time.Time { return c.t }

// TestAttackIdleRescansRecovered: Overrides asks idle of the tables of up
// to four unused names for each new name it meets while MaxPolicies are
// in use (each refused key, every ErrorTTL), holding its lock, which
// every resolve and refund of every key waits for. idle scanned every
// slot of each shard whose next recovery had passed, and swept nothing:
// the next call scanned them all again (200,000 recovered keys and one
// live: 2.2-6.4 ms per call, every call). It now sweeps the shards it
// looks at, as a full shard's insert does, so that a shard that does not
// change is not scanned again.
func TestAttackIdleRescansRecovered(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	clk := &idleClock{time.Unix(1_000_000, 0)}
	l, err := NewLimiter(MustPolicy("x", Limit{Algorithm: FixedWindow{Quota: 5, Window: time.Second}}), WithClock(clk))
	require.NoError(t, err)
	for i := range 256 {
		_, err := l.AllowN(ctx, fmt.Sprint("k", i), 1)
		require.NoError(t, err)
	}
	clk.t = clk.t.Add(time.Second) // every key recovered, then one live
	mem := l.cur.Load().mem
	live := ""
	for i := 0; live == ""; i++ {
		if k := fmt.Sprint("live", i); mem.shard(mem.hash(k)) != &mem.shards[0] {
			live = k
		}
	}
	_, err = l.AllowN(ctx, live, 1)
	require.NoError(t, err)
	now := l.now()

	require.False(t, l.idle(now))
	// Every shard idle looked at before the live one needs no scan again.
	for i := range mem.shards {
		s := &mem.shards[i]
		s.mu.Lock()
		n, next := s.n, s.nextIdle
		s.mu.Unlock()
		if n > 0 && next > now {
			break // the live key's shard: idle stopped there
		}
		require.Zero(t, n, "shard %d: its recovered entries are scanned again at the next call", i)
	}
}
