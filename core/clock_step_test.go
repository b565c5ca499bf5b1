package core_test

import (
	"context"
	"testing"
	"time"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/core/coretest"
	"github.com/stretchr/testify/require"
)

// An injected clock that steps (README, Known limits): a step back of an
// hour leaves every algorithm's used-up key denied until the clock has
// caught up, admitting nothing meanwhile, and admitted once it has and
// the key's span has passed; a step forward of a day refills one burst or
// window, no more.
func TestInjectedClockStepsAdmitNoMore(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const w = time.Minute
	useUp := func(l *core.Limiter) int {
		n := 0
		for i := 0; i < 10; i++ {
			if r, err := l.Allow(ctx, "k"); err == nil && r.Allowed {
				n++
			}
		}
		return n
	}
	for _, a := range allAlgorithms(5, w) {
		clk := coretest.NewClock(t0.Add(time.Hour))
		l := newLimiter(t, clk, core.Limit{Name: "x", Algorithm: a})
		burst := useUp(l)
		require.LessOrEqual(t, burst, 6, "%T", a) // 5; Backoff 6; WarmUp 1
		for _, at := range []time.Duration{0, 30 * time.Minute, 59 * time.Minute} {
			clk.Set(t0.Add(at))
			require.Zero(t, useUp(l), "%T stepped back to +%v", a, at)
		}
		clk.Set(t0.Add(time.Hour + 3*w))
		require.Positive(t, useUp(l), "%T: caught up", a)

		clk.Set(t0.Add(25 * time.Hour))
		require.LessOrEqual(t, useUp(l), burst, "%T stepped forward a day: one burst", a)
	}
}
