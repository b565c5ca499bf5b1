package redisstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/stretchr/testify/require"
)

// TestAttackClockBehindRefundsEndedHold: on Redis TIME (LoadOnTime here,
// at the test clock's instants), a take A whose hold ended minutes ago, a
// take B since, then the clock back an hour: settle moved B's state back
// by the step, but a refund of A measured A's hold from A's instant on the
// clock before the step, an hour more than it had left, and gave A's cost
// back out of B's: a third take C was admitted within B's interval (2 in
// a minute at 1 a minute, burst 1), whether the refund was the first call
// after the step or a peek had settled the key before it. A take's instant
// now moves back with the state it is refunded to, and a take made before
// a step settled since gives nothing back.
func TestAttackClockBehindRefundsEndedHold(t *testing.T) {
	t.Parallel()
	c := startOnTime(t)
	ctx := context.Background()
	for i, alg := range spansOfOnePerMinute() {
		for _, peek := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/peek=%v", alg, peek), func(t *testing.T) {
				t.Parallel()
				clk := coretest.NewClock(coretest.T0.Add(time.Hour))
				l, err := core.NewLimiter(core.MustPolicy("p", core.Limit{Name: "x", Algorithm: alg}),
					core.WithClock(clk), core.WithStore(newStore(t, c, redisstore.Options{
						Prefix: fmt.Sprintf("fg:ended%d%v:", i, peek), CallerClock: true, DenyCacheSize: -1})))
				require.NoError(t, err)
				a, err := l.Allow(ctx, "k")
				require.NoError(t, err)
				require.True(t, a.Allowed, "A")
				clk.Advance(10 * time.Minute) // A's hold has ended
				b, err := l.Allow(ctx, "k")
				require.NoError(t, err)
				require.True(t, b.Allowed, "B")
				clk.Advance(-time.Hour) // the clock steps back an hour
				if peek {
					_, err = l.Peek(ctx, "k", 1)
					require.NoError(t, err)
				}
				_, err = l.Refund(ctx, "k", a)
				require.NoError(t, err)
				r, err := l.Allow(ctx, "k")
				require.NoError(t, err)
				require.False(t, r.Allowed, "C: A's refund gave back B's cost")
			})
		}
	}
}

// spansOfOnePerMinute returns the algorithms whose state is a span of time,
// each at 1 a minute with a burst of 1.
func spansOfOnePerMinute() []core.Algorithm {
	return []core.Algorithm{
		core.GCRA{Rate: core.PerMinute(1), Burst: 1},
		core.LeakyBucket{Rate: core.PerMinute(1), Capacity: 1, NoDelay: 1},
		core.TokenBucket{Rate: core.PerMinute(1), Burst: 1},
		core.WarmUp{Rate: core.PerMinute(1), WarmUp: time.Minute, ColdFactor: 1},
	}
}
