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
// [TimeStep] of Redis's clock, read by c before and after it, at most 40
// times. It is for a test on Redis TIME whose comparison a window
// boundary between two calls would change (rightly): a decisive attempt
// has none between them. Each attempt should use keys of its own. An
// attempt takes a few milliseconds and seldom meets a boundary; each
// after the first starts early in a step (see stepStart), so that it has
// nearly a whole step to run in, and the bound is met only on a machine
// so loaded that each of 40 attempts took most of a step.
func InOneTimeStep(t testing.TB, c redis.Cmdable, attempt func(n int)) {
	t.Helper()
	ctx := context.Background()
	for n := 0; ; n++ {
		if n == 40 {
			t.Fatalf("redistest: no attempt ran within one %v step of Redis's clock", TimeStep)
		}
		start := stepStart(t, c, n > 0)
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

// stepStart returns Redis's clock; if early, once it reads within the
// first tenth of a [TimeStep], waiting for the next step when it reads
// later in one (at most about one step, in a bounded number of readings;
// the last reading if none falls early: the attempt then merely has less
// of its step).
func stepStart(t testing.TB, c redis.Cmdable, early bool) time.Time {
	t.Helper()
	const poll = 5 * time.Millisecond
	var now time.Time
	for range 2 * int(TimeStep/poll) {
		var err error
		if now, err = c.Time(context.Background()).Result(); err != nil {
			t.Fatalf("redistest: TIME: %v", err)
		}
		into := now.Sub(now.Truncate(TimeStep))
		if !early || into < TimeStep/10 {
			break
		}
		time.Sleep(min(poll, TimeStep-into))
	}
	return now
}
