package core_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
)

// A limiter's own Policy, after a change the in-memory table decides
// through a recoding (a TokenBucket's Burst, a WarmUp's maximum), is a
// policy like any other: SetPolicy takes it back (the way config.Reload
// undoes a change when a later one is refused) and NewLimiter binds it,
// and both decide as the plain policy of the same limits would.
func TestRecodedPolicyReused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, alg := range []func(n int64) core.Algorithm{
		func(n int64) core.Algorithm { return core.TokenBucket{Rate: core.PerHour(1), Burst: n} },
		func(n int64) core.Algorithm {
			return core.WarmUp{Rate: core.PerSecond(n), ColdFactor: 3, WarmUp: time.Minute}
		},
	} {
		pol := func(n int64) *core.Policy { return core.MustPolicy("p", core.Limit{Name: "l", Algorithm: alg(n)}) }
		t.Run(fmt.Sprintf("%T", alg(1)), func(t *testing.T) {
			// take makes 3 takes of key on each limiter and requires each
			// to decide as ref does.
			take := func(ref *core.Limiter, ls ...*core.Limiter) {
				t.Helper()
				for i := range 3 {
					want, err := ref.Allow(ctx, "k")
					require.NoError(t, err)
					for j, l := range ls {
						got, err := l.Allow(ctx, "k")
						require.NoError(t, err)
						require.Equal(t, want.Limits(), got.Limits(), "take %d, limiter %d", i, j)
					}
				}
			}
			clk := coretest.NewClock(coretest.T0)
			newLimiter := func(p *core.Policy) *core.Limiter {
				l, err := core.NewLimiter(p, core.WithClock(clk))
				require.NoError(t, err)
				return l
			}
			a := newLimiter(pol(10))
			require.NoError(t, a.SetPolicy(pol(20))) // a's table decides 20 through a recoding
			b := newLimiter(a.Policy())              // b's table is bound for a's policy as it stands
			ref := newLimiter(pol(20))
			take(ref, a, b)

			own := a.Policy()
			require.NoError(t, a.SetPolicy(pol(30)))
			require.NoError(t, b.SetPolicy(pol(30)))
			require.NoError(t, ref.SetPolicy(pol(30)))
			take(ref, a, b)

			require.NoError(t, a.SetPolicy(own)) // back, as a refused reload puts it
			require.NoError(t, b.SetPolicy(own))
			require.NoError(t, ref.SetPolicy(pol(20)))
			take(ref, a, b)
		})
	}
}
