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
