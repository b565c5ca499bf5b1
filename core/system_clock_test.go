package core_test

import (
	"context"
	"testing"

	"github.com/floodgate-go/floodgate/core"
	"github.com/stretchr/testify/require"
)

// SystemClock reads what a limiter given no clock reads: its decisions'
// instants lie between two readings of it, and it never goes back.
func TestSystemClockIsTheLimitersDefault(t *testing.T) {
	t.Parallel()
	l, err := core.NewLimiter(core.MustPolicy("p", core.Limit{Name: "x", Algorithm: core.GCRA{Rate: core.PerSecond(10)}}))
	require.NoError(t, err)
	before := core.SystemClock().Now()
	r, err := l.Allow(context.Background(), "k")
	require.NoError(t, err)
	after := core.SystemClock().Now()
	require.False(t, r.At().Before(before), "%v before %v", r.At(), before)
	require.False(t, r.At().After(after), "%v after %v", r.At(), after)
}
