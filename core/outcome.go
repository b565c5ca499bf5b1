package core

import (
	"fmt"
	"time"
)

// Outcome is one limit's verdict as a [Store] that runs the algorithms
// outside Go (in Redis, say) computed it: the fields of a [LimitResult]
// that depend on the decision.
type Outcome struct {
	Allowed    bool
	Remaining  int64
	ResetAfter time.Duration
	RetryAfter time.Duration
	Delay      time.Duration
	// Hold is, for an admitted take, how long after the decision the take
	// still holds part of the limit's state (a refund gives nothing back
	// from then on); 0 means ResetAfter.
	Hold time.Duration
}

// ResultOf assembles the Result of req decided on p from one Outcome per
// limit, in policy order; taken reports whether the cost was consumed. It
// is for Store implementations; the in-memory store does not need it.
func ResultOf(p *Policy, req Request, taken bool, outs []Outcome) (Result, error) {
	if p == nil || len(outs) != len(p.limits) {
		return Result{}, fmt.Errorf("core: ResultOf: %d outcomes for %d limits", len(outs), p.numLimits())
	}
	res := Result{Cost: req.Cost, at: req.Now, policy: p, taken: taken}
	for i, o := range outs {
		res.per[i] = outcome{
			allowed: o.Allowed, remaining: o.Remaining, resetAfter: int64(o.ResetAfter),
			retryAfter: int64(o.RetryAfter), delay: int64(o.Delay), hold: int64(o.Hold),
		}
	}
	if len(outs) == 1 {
		res.set(0, &res.per[0])
	} else {
		res.summarize()
	}
	return res, nil
}

func (p *Policy) numLimits() int {
	if p == nil {
		return 0
	}
	return len(p.limits)
}
