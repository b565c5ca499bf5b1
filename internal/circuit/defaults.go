package circuit

import (
	"errors"
	"fmt"
	"time"
)

// Defaults fills the breaker options of a Redis client's Options left at
// zero (Failures 3, ProbeInterval 100 ms, ProbeMax 800 ms or
// ProbeInterval when that is longer) and checks them: an error for a
// negative one or a ProbeMax below ProbeInterval. The caller wraps it in
// its own name and core.ErrInvalidConfig.
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
	}
	return nil
}
