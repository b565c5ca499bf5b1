package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/stretchr/testify/require"
)

// TestClockBackRefundsOldTakesBounded: on Redis TIME (LoadOnTime here, at
// the test clock's instants), a clock stepped back by D moves a key's
// state back by D (settle), but a refund measures a take's hold from the
// take's instant, on the clock before the step: every take of the D
// before it still holds, to the script, what the moved state no longer
// holds. A client refunding its old takes one before each new take is
// still admitted at most one burst beyond the refund of its latest take
// (GCRA: 2 of 10): the limiter's refund bookkeeping sends no more, and a
// refund never brings a state below now. A guard: this held before.
func TestClockBackRefundsOldTakesBounded(t *testing.T) {
	t.Parallel()
	c := startOnTime(t)
	ctx := context.Background()
	clk := coretest.NewClock(coretest.T0.Add(time.Hour))
	for _, alg := range []core.Algorithm{
		core.GCRA{Rate: core.PerMinute(1), Burst: 1},
		core.FixedWindow{Quota: 1, Window: time.Minute},
		core.TokenBucket{Rate: core.PerMinute(1), Burst: 1},
	} {
		l, err := core.NewLimiter(core.MustPolicy("p", core.Limit{Name: "x", Algorithm: alg}),
			core.WithClock(clk), core.WithStore(newStore(t, c, redisstore.Options{CallerClock: true, DenyCacheSize: -1})))
		require.NoError(t, err)
		const n = 10
		var old [n]core.Result
		for i := range old {
			clk.Advance(time.Minute)
			r, err := l.Allow(ctx, "k")
			require.NoError(t, err)
			require.True(t, r.Allowed, "%T take %d", alg, i)
			old[i] = r
		}
		clk.Advance(-n * time.Minute) // the clock steps back ten minutes
		admitted := 0
		for i := n - 1; i >= 0; i-- {
			_, err := l.Refund(ctx, "k", old[i])
			require.NoError(t, err)
			r, err := l.Allow(ctx, "k")
			require.NoError(t, err)
			if r.Allowed {
				admitted++
			}
		}
		// The latest take's refund, then one burst at most.
		require.LessOrEqual(t, admitted, 2, "%T: admitted after the step", alg)
		clk.Advance(2 * n * time.Minute)
	}
}
