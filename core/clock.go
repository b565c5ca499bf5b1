package core

import "time"

// Clock tells a [Limiter] what time it is. Tests inject a fake one; a nil
// Clock means the system clock.
type Clock interface {
	Now() time.Time
}

// The system clock is read as a monotonic offset from a wall-clock instant
// taken at start-up: cheaper than time.Now, and immune to wall-clock steps.
var (
	monoBase = time.Now()
	wallBase = monoBase.UnixNano()
)

func systemNow() int64 { return wallBase + int64(time.Since(monoBase)) }

// clockNow reads c in Unix nanoseconds. A reading outside the instants a
// limiter decides at is returned as one outside them too (-1, or
// maxInstant+1): time.Time.UnixNano is undefined beyond 1678..2262 and
// wraps, so that a clock reading 2600-01-01 would be read as 2015-06-13.
func clockNow(c Clock) int64 {
	t := c.Now()
	switch s := t.Unix(); {
	case s < 0:
		return -1
	case s > maxInstant/1e9:
		return maxInstant + 1
	}
	return t.UnixNano() // fits: at most maxInstant/1e9 s and 999,999,999 ns
}

// SystemClock returns the clock a [Limiter] reads when it is given none:
// the wall clock read at start-up plus the monotonic time since, immune to
// wall-clock steps (NTP) and to a suspended machine's wall clock jumping on
// resume. A store that reads a clock of its own beside the limiters' (the
// local-first store's sync rounds) must default to this one, so that both
// read the same instants: time.Now's wall reading drifts from it at every
// such step.
func SystemClock() Clock { return systemClock{} }

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Unix(0, systemNow()) }
