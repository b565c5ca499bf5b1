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
	var o outcome
	ok := p.s.denied(st, now, cost, true, &o)
	return ProbeOutcome{o.allowed, o.remaining, o.resetAfter, o.retryAfter, o.delay}, ok
}

// Refund is the stepper's refund.
func (p *Probe) Refund(st []int64, now, taken, cost int64) { p.s.refund(st, now, taken, cost) }

// IdleAt is the stepper's idleAt.
func (p *Probe) IdleAt(st []int64) int64 { return p.s.idleAt(st) }
