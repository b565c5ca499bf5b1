package circuit

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// MaxFailures and MaxProbe bound Failures and ProbeMax (and so
// ProbeInterval).
const (
	MaxFailures = math.MaxInt32
	MaxProbe    = time.Hour
)

// Defaults fills the breaker options of a Redis client's Options left at
// zero (Failures 3, ProbeInterval 100 ms, ProbeMax 800 ms or
// ProbeInterval when that is longer) and checks them: an error for a
// negative one, a ProbeMax below ProbeInterval, or one past what the
// breaker holds (Failures in an int32, a doubled wait in a Duration:
// MaxFailures, MaxProbe). The caller wraps it in its own name and
// core.ErrInvalidConfig.
func Defaults(failures *int, probeInterval, probeMax *time.Duration) error {
	if *failures == 0 {
		*failures = 3
	}
	if *probeInterval == 0 {
		*probeInterval = 100 * time.Millisecond
	}
	if *probeMax == 0 {
		*probeMax = max(800*time.Millisecond, *probeInterval)
	}
	switch {
	case *failures < 0 || *probeInterval < 0 || *probeMax < 0:
		return errors.New("negative Failures, ProbeInterval or ProbeMax")
	case *probeMax < *probeInterval:
		return fmt.Errorf("ProbeMax %v below ProbeInterval %v", *probeMax, *probeInterval)
	case *failures > MaxFailures || *probeMax > MaxProbe:
		return fmt.Errorf("options past the breaker's bounds: Failures %d (at most %d), ProbeMax %v (at most %v)", *failures, MaxFailures, *probeMax, MaxProbe)
	}
	return nil
}
