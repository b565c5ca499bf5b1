package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/stretchr/testify/require"
)

// aheadClock is the system clock, ahead by d: an application server whose
// clock runs ahead of Redis's.
type aheadClock struct{ d time.Duration }

func (c aheadClock) Now() time.Time { return time.Now().Add(c.d) }

// TestAttackRefundLogUnderClockSkew: on Redis TIME (the default), the
// store decides a refund at Redis's instant, but the refund log bounds how
// far the refund moved the takes after it by the caller's: shift = what
// its take held at the caller's now. With the caller's clock 400 ms ahead
// of Redis's, take A and B (half a burst of 100 each, 10 ms a unit), and
// refund A: Redis moves B's span down by 50 units (A held all of it), the
// log records 10 (A's span ends 100 ms after the caller's now). 450 ms on,
// B holds about 5 units; a take D (about 95), B's refund (its hold taken
// as 90 units from its instant: it gives back 45), a take E (45): about
// 140 units kept within a few milliseconds with a burst of 100, where an
// ideal meter replaying D and E admits 100 and a unit per 10 ms since.
// Package store.go: "By default the scripts read Redis's TIME, so
// application servers' clock skew does not matter".
func TestAttackRefundLogUnderClockSkew(t *testing.T) {
	t.Parallel()
	c := startRedis(t).Client(t)
	ctx := context.Background()
	const burst = 100
	const iv = 10 * time.Millisecond
	for _, a := range []core.Algorithm{
		core.GCRA{Rate: core.Per(1, iv), Burst: burst},
		core.TokenBucket{Rate: core.Per(1, iv), Burst: burst},
	} {
		t.Run(a.String(), func(t *testing.T) {
			t.Parallel()
			s := newStore(t, c, redisstore.Options{})
			l, err := core.NewLimiter(core.MustPolicy("p", core.Limit{Name: "l", Algorithm: a}),
				core.WithStore(s), core.WithClock(aheadClock{400 * time.Millisecond}),
				core.WithRefundLedger(0, time.Hour))
			require.NoError(t, err)
			take := func(cost int64) (core.Result, bool) {
				r, err := l.AllowN(ctx, "k", cost)
				require.NoError(t, err)
				return r, r.Allowed
			}
			ra, ok := take(burst / 2)
			require.True(t, ok)
			rb, ok := take(burst / 2)
			require.True(t, ok)
			_, err = l.Refund(ctx, "k", ra)
			require.NoError(t, err)
			time.Sleep(450 * time.Millisecond) // B, moved down by A's 50 units, holds about 5
			start := time.Now()
			kept := int64(0)
			costs := []int64{64, 16, 8, 4, 2, 1, 1, 1, 1}
			for _, c := range costs {
				if _, ok := take(c); ok {
					kept += c
				}
			}
			_, err = l.Refund(ctx, "k", rb)
			require.NoError(t, err)
			for _, c := range costs {
				if _, ok := take(c); ok {
					kept += c
				}
			}
			elapsed := time.Since(start)
			require.LessOrEqual(t, kept, int64(burst)+int64(elapsed/iv)+1,
				"units kept within %v with a burst of %d, a unit a %v", elapsed, burst, iv)
		})
	}
}
