package core

// This file exposes compiled steppers to the black-box tests (package
// core_test), which drive states directly: idleAt, and decisions on a given
// state, cannot be observed through a Limiter.

// Probe is a compiled algorithm, for tests.
type Probe struct{ s stepper }

// ProbeOutcome is one step's verdict, with exported fields.
type ProbeOutcome struct {
	Allowed                                  bool
	Remaining, ResetAfter, RetryAfter, Delay int64
}

// NewProbe compiles a.
func NewProbe(a Algorithm) (*Probe, error) {
	s, err := a.compile()
	if err != nil {
		return nil, err
	}
	return &Probe{s: s}, nil
}

// Words is the stepper's words().
func (p *Probe) Words() int { return p.s.words() }

// Take is the stepper's take.
func (p *Probe) Take(st []int64, now, cost int64, commit bool) ProbeOutcome {
	o := p.s.take(st, now, cost, commit)
	return ProbeOutcome{o.allowed, o.remaining, o.resetAfter, o.retryAfter, o.delay}
}

// Denied is the stepper's denied, committed: it reports what the limit
// decides once the denied attempt is recorded, and whether it records it.
func (p *Probe) Denied(st []int64, now, cost int64) (ProbeOutcome, bool) {
	o, ok := p.s.denied(st, now, cost, true)
	return ProbeOutcome{o.allowed, o.remaining, o.resetAfter, o.retryAfter, o.delay}, ok
}

// Refund is the stepper's refund of a take whose hold has not ended (the
// refund is capped only by the state).
func (p *Probe) Refund(st []int64, now, taken, cost int64) {
	p.s.refund(st, now, taken, maxInstant+2*maxSpan, cost)
}

// RefundUntil is the stepper's refund of a take whose hold ends at until
// (taken plus the take's hold), as Policy.refund calls it: nothing from
// until on.
func (p *Probe) RefundUntil(st []int64, now, taken, until, cost int64) {
	if now < until {
		p.s.refund(st, now, taken, until, cost)
	}
}

// Hold is the hold of an admitted take's outcome: how long after the take
// it holds part of the state.
func (p *Probe) Hold(st []int64, now, cost int64) int64 {
	o := p.s.take(st, now, cost, false)
	if o.hold != 0 {
		return o.hold
	}
	return o.resetAfter
}

// IdleAt is the stepper's idleAt.
func (p *Probe) IdleAt(st []int64) int64 { return p.s.idleAt(st) }

// Anonymous returns r without what names its decision (its id, key hash,
// eviction epoch and limiter), for tests comparing the decisions of different keys or
// limiters.
func Anonymous(r Result) Result {
	r.id, r.kh, r.epoch, r.owner = 0, 0, 0, nil
	return r
}
