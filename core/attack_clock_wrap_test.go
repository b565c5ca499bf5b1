package core_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wallClock is a Clock reading any time.Time, also those whose Unix
// nanoseconds do not fit an int64 (coretest.Clock keeps nanoseconds).
type wallClock struct{ t atomic.Pointer[time.Time] }

func (c *wallClock) Now() time.Time  { return *c.t.Load() }
func (c *wallClock) Set(t time.Time) { c.t.Store(&t) }

// A clock reading outside 1970..2189 is refused with ErrClock however far
// out it is: time.Time.UnixNano is undefined beyond 1678..2262 (it wraps),
// and a clock reading 2600-01-01 was decided at 2015-06-13, 1600-01-01 at
// 2184-07-20 and 1000-01-01 at 2169-02-08, as instants within the range.
func TestAttackClockFarOutsideTheRangeIsRefused(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	in := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, out := range []time.Time{
		time.Date(2600, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(1600, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC),
		{},
	} {
		for _, a := range allAlgorithms(5, time.Hour) {
			clk := &wallClock{}
			clk.Set(in)
			p := core.MustPolicy("p", core.Limit{Name: "x", Algorithm: a})
			l, err := core.NewLimiter(p, core.WithClock(clk))
			require.NoError(t, err)
			taken, err := l.Allow(ctx, "k")
			require.NoError(t, err)
			require.True(t, taken.Allowed)

			clk.Set(out)
			var res core.Result
			for name, err := range map[string]error{
				"Take":      l.Take(ctx, "k", 1, &res),
				"TakeBytes": l.TakeBytes(ctx, []byte("k"), 1, &res),
				"Peek":      second(l.Peek(ctx, "k", 1)),
				"Refund":    second(l.Refund(ctx, "k", taken)),
			} {
				assert.ErrorIs(t, err, core.ErrClock, "%s of %T at %v (decided at %v)", name, a, out, res.At())
			}
		}
	}
}

func second[T any](_ T, err error) error { return err }
