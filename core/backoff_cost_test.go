package core_test

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/stretchr/testify/require"
)

// A take of cost c is c failures of cost 1 at the same instant: it passes
// exactly when all of them would, its outcome is the last one's, and every
// later schedule is decided the same after either. A denied cost is told
// its exact wait.
func TestBackoffCostIsThatManyFailures(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(51, 52))
	configs := append([]core.Backoff{
		{Free: 5, Window: 4 * time.Second, Base: time.Second, Max: 4 * time.Second, Forgive: 8 * time.Second},
		{Free: 4, Window: time.Hour, Base: time.Second, Max: 2 * time.Second, Forgive: 2 * time.Second},
	}, boConfigs...)
	for _, b := range configs {
		p, err := core.NewProbe(b)
		require.NoError(t, err)
		for i := 0; i < 3000; i++ {
			st, now := boRandomState(p, rng)
			now += rng.Int64N(int64(3 * time.Second))
			for c := int64(1); c <= b.Free; c++ {
				whole := append([]int64(nil), st...)
				got := p.Take(whole, now, c, true)
				units := append([]int64(nil), st...)
				var want core.ProbeOutcome
				for u := int64(0); u < c; u++ {
					if want = p.Take(units, now, 1, true); !want.Allowed {
						break
					}
				}
				if want.Allowed != got.Allowed {
					require.Equal(t, want.Allowed, got.Allowed, "%+v state %v: cost %d at %d", b, st, c, now)
				}
				if !got.Allowed {
					if !slices.Equal(st, whole) {
						require.Equal(t, st, whole, "a denial changes nothing")
					}
					if got.RetryAfter != int64(core.Never) {
						require.True(t, p.Take(append([]int64(nil), st...), now+got.RetryAfter, c, false).Allowed,
							"%+v state %v: cost %d retried after %d", b, st, c, got.RetryAfter)
						require.False(t, p.Take(append([]int64(nil), st...), now+got.RetryAfter-1, c, false).Allowed,
							"%+v state %v: cost %d retried 1 ns early", b, st, c)
					}
					continue
				}
				if want.Remaining != got.Remaining || want.ResetAfter != got.ResetAfter {
					require.Equal(t, want.Remaining, got.Remaining)
					require.Equal(t, want.ResetAfter, got.ResetAfter)
				}
				seed := rng.Uint64()
				start := now + rng.Int64N(int64(2*time.Second))
				sameOutcomes(t,
					boRandomOps(p, units, start, rand.New(rand.NewPCG(seed, 3)), 30),
					boRandomOps(p, whole, start, rand.New(rand.NewPCG(seed, 3)), 30),
					"%+v state %v: cost %d at %d", b, st, c, now)
			}
		}
	}
}

// A caller whose clock lags the key's latest failure is decided as of that
// failure, but told waits on its own clock: retrying at its now plus
// RetryAfter passes, 1 ns earlier does not (as for every other algorithm,
// and as the Redis store's deny cache counts them).
func TestBackoffLaggingCallerWaitsOnItsClock(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(53, 54))
	for _, b := range boConfigs {
		p, err := core.NewProbe(b)
		require.NoError(t, err)
		for i := 0; i < 3000; i++ {
			st, now := boRandomState(p, rng)
			stale := now - rng.Int64N(int64(2*time.Second))
			c := 1 + rng.Int64N(b.Free)
			o := p.Take(st, stale, c, false)
			if o.Allowed || o.RetryAfter == int64(core.Never) {
				continue
			}
			require.True(t, p.Take(st, stale+o.RetryAfter, c, false).Allowed, "%+v state %v: cost %d at %d", b, st, c, stale)
			require.False(t, p.Take(st, stale+o.RetryAfter-1, c, false).Allowed, "%+v state %v: cost %d at %d", b, st, c, stale)
		}
	}
}
