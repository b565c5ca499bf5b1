package core_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/require"
)

// The latest instant a limiter decides at is the documented one, exactly:
// every algorithm decides at it (and a Never at it), and 1 ns later the
// limiter refuses with ErrClock, whose message names it. The same at the
// epoch and 1 ns before it.
func TestClockBoundsExact(t *testing.T) {
	t.Parallel()
	const documented = "2189-03-16T23:50:27.641081855Z"
	last, err := time.Parse(time.RFC3339Nano, documented)
	require.NoError(t, err)
	require.Equal(t, int64(math.MaxInt64)-int64(1)<<61, last.UnixNano(), "the bound is 2^63−1 − 2^61 ns")
	require.Contains(t, core.ErrClock.Error(), documented)
	require.Contains(t, core.ErrClock.Error(), "1970-01-01T00:00:00Z")
	ctx := context.Background()
	for _, a := range allAlgorithms(5, 365*24*time.Hour) {
		for _, edge := range []struct {
			ok, bad time.Time
		}{{last, last.Add(1)}, {time.Unix(0, 0), time.Unix(0, -1)}} {
			clk := coretest.NewClock(edge.ok)
			l := newLimiter(t, clk, core.Limit{Name: "x", Algorithm: a})
			for i := 0; i < 7; i++ {
				r, err := l.AllowN(ctx, "k", 1+int64(i%3))
				require.NoError(t, err, "%T at %v", a, edge.ok)
				check(t, a, r)
			}
			r, err := l.AllowN(ctx, "k", 1<<62)
			require.NoError(t, err)
			require.Equal(t, core.Never, r.RetryAfter, "%T at %v", a, edge.ok)
			_, err = l.Peek(ctx, "k", 1)
			require.NoError(t, err)
			clk.Set(edge.bad)
			_, err = l.Allow(ctx, "k")
			require.ErrorIs(t, err, core.ErrClock, "%T at %v", a, edge.bad)
			_, err = l.Peek(ctx, "k", 1)
			require.ErrorIs(t, err, core.ErrClock, "%T at %v", a, edge.bad)
		}
	}
}
