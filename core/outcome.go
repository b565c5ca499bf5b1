package core

import (
	"time"

	"github.com/floodgate-go/floodgate/core/store"
)

// resultOf writes into res the Result of req decided on p from a table's
// decision: every field a Result of p reads, in place (a Result is a few
// hundred bytes: assembling it aside and copying it cost a decision of the
// Redis or local-first store a fifth of its time). Shadow outcomes are
// the caller's (doOn clears their bits).
func (p *Policy) resultOf(req *store.Request, d *store.Decision, res *Result) {
	res.Cost, res.at, res.policy, res.taken, res.source = req.Cost, d.At, p, d.Taken, d.Source
	res.id, res.kh, res.epoch, res.owner = 0, 0, 0, nil
	for i := range p.limits {
		o := &d.Outcomes[i]
		res.per[i] = outcome{
			allowed: o.Allowed, remaining: o.Remaining, resetAfter: int64(o.ResetAfter),
			retryAfter: int64(o.RetryAfter), delay: int64(o.Delay), hold: int64(o.Hold),
		}
	}
	if len(p.limits) == 1 {
		res.set(0, &res.per[0])
	} else {
		res.summarize()
	}
}

// decision is the inverse of Policy.resultOf: what a table answers to
// report r.
func (r *Result) decision() store.Decision {
	d := store.Decision{Taken: r.taken, At: r.at, Source: r.source}
	for i := range r.NumLimits() {
		o := &r.per[i]
		d.Outcomes[i] = store.Outcome{
			Allowed: o.allowed, Remaining: o.remaining, ResetAfter: time.Duration(o.resetAfter),
			RetryAfter: time.Duration(o.retryAfter), Delay: time.Duration(o.delay), Hold: time.Duration(o.hold),
		}
	}
	return d
}
