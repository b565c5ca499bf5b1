package redistest

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TimeStep is the step of Redis's clock within which [InOneTimeStep]
// keeps an attempt. Every window and period aligned to the clock that
// floodgate's tests use on Redis TIME is a multiple of it.
const TimeStep = 500 * time.Millisecond

// InOneTimeStep runs attempt (0, 1, …) until one runs within one
// [TimeStep] of Redis's clock, read by c before and after it, at most 20
// times. It is for a test on Redis TIME whose comparison a window
// boundary between two calls would change (rightly): a decisive attempt
// has none between them. Each attempt should use keys of its own; an
// attempt takes a few milliseconds, so the bound is never met but on a
// machine too slow for any test.
func InOneTimeStep(t testing.TB, c redis.Cmdable, attempt func(n int)) {
	t.Helper()
	ctx := context.Background()
	for n := 0; ; n++ {
		if n == 20 {
			t.Fatalf("redistest: no attempt ran within one %v step of Redis's clock", TimeStep)
		}
		start, err := c.Time(ctx).Result()
		if err != nil {
			t.Fatalf("redistest: TIME: %v", err)
		}
		attempt(n)
		end, err := c.Time(ctx).Result()
		if err != nil {
			t.Fatalf("redistest: TIME: %v", err)
		}
		if end.Truncate(TimeStep).Equal(start.Truncate(TimeStep)) {
			return
		}
	}
}
