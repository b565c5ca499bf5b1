package localfirst

import (
	"fmt"

	"github.com/floodgate-go/floodgate/core"
)

// CheckRebind returns the error Rebind(p) would return, changing nothing
// (see core.Rebinder): core.Limiter.CheckPolicy asks it, so that a reload
// refused here is refused before any limiter changes.
func (t *table) CheckRebind(p *core.Policy) error {
	_, err := t.rebindLimits(p)
	return err
}

// rebindLimits returns p's limits if t's keys may be decided under them:
// the same limits (by kind and, for windows, window) in the same order,
// and for a bucket the same span its refill time fits in.
func (t *table) rebindLimits(p *core.Policy) ([]lim, error) {
	ls, err := limitsOf(p)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", err, core.ErrPolicyChange)
	}
	if !sameShape(t.ls, ls) || shape(p, ls) != t.k.fp {
		return nil, fmt.Errorf("localfirst: policy %q: the limits' kinds, windows, or (for a bucket) the span its refill time fits in changed: %w", p.Name(), core.ErrPolicyChange)
	}
	return ls, nil
}
