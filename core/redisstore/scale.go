package redisstore

import (
	"fmt"
	"math"
	"time"

	"github.com/floodgate-go/floodgate/core"
)

// ScalePolicy returns p with every limit scaled to share (in (0, 1]) of its
// quota: the policy FailLocal decides on, so that N processes with share
// 1/N together grant about what the shared Redis limit would. Counts
// (Burst, Capacity, Quota, PeriodCap, Free) become ⌊count·share⌋, at least
// 1; rates keep their Count and stretch their Period to ⌈Period/share⌉.
// Windows and periods are unchanged. Since counts are at least 1, N
// processes may grant up to N units where the shared limit grants fewer.
func ScalePolicy(p *core.Policy, share float64) (*core.Policy, error) {
	if p == nil || p.StateWords() == 0 {
		return nil, fmt.Errorf("redisstore: ScalePolicy: nil or zero policy: %w", core.ErrInvalidConfig)
	}
	if !(share > 0 && share <= 1) {
		return nil, fmt.Errorf("redisstore: share %v must be in (0, 1]: %w", share, core.ErrInvalidConfig)
	}
	n := func(c int64) int64 {
		if c == 0 {
			return 0
		}
		return max(1, int64(math.Floor(float64(c)*share)))
	}
	rate := func(r core.Rate) core.Rate {
		return core.Rate{Count: r.Count, Period: time.Duration(math.Ceil(float64(r.Period) / share))}
	}
	ls := p.Limits()
	for i := range ls {
		switch a := ls[i].Algorithm.(type) {
		case core.GCRA:
			if a.Burst == 0 {
				a.Burst = a.Rate.Count
			}
			a.Rate, a.Burst = rate(a.Rate), n(a.Burst)
			ls[i].Algorithm = a
		case core.LeakyBucket:
			if a.Capacity == 0 {
				a.Capacity = a.Rate.Count
			}
			a.Rate, a.Capacity = rate(a.Rate), n(a.Capacity)
			a.NoDelay = min(a.NoDelay, a.Capacity)
			ls[i].Algorithm = a
		case core.TokenBucket:
			if a.Burst == 0 {
				a.Burst = a.Rate.Count
			}
			a.Rate, a.Burst = rate(a.Rate), n(a.Burst)
			ls[i].Algorithm = a
		case core.WarmUp:
			a.Rate = rate(a.Rate)
			ls[i].Algorithm = a
		case core.FixedWindow:
			a.Quota = n(a.Quota)
			ls[i].Algorithm = a
		case core.SlidingWindow:
			a.Quota = n(a.Quota)
			ls[i].Algorithm = a
		case core.SlidingLog:
			a.Quota = n(a.Quota)
			ls[i].Algorithm = a
		case core.Hybrid:
			a.Quota = n(a.Quota)
			ls[i].Algorithm = a
		case core.RollingWindow:
			a.Quota, a.PeriodCap = n(a.Quota), min(n(a.PeriodCap), n(a.Quota))
			ls[i].Algorithm = a
		case core.Backoff:
			a.Free = n(a.Free)
			ls[i].Algorithm = a
		default:
			return nil, fmt.Errorf("redisstore: cannot scale %T: %w", a, core.ErrInvalidConfig)
		}
	}
	return core.NewPolicy(p.Name(), ls...)
}
