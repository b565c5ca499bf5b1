package core

// LBHProbe exposes a compiled algorithm's stepper to the black-box tests of
// LeakyBucket and Hybrid: idleAt, and decisions on a given state, cannot be
// observed through a Limiter.
type LBHProbe struct{ s stepper }

// LBHOutcome is an outcome with exported fields.
type LBHOutcome struct {
	Allowed                                  bool
	Remaining, ResetAfter, RetryAfter, Delay int64
}

// NewLBHProbe compiles a.
func NewLBHProbe(a Algorithm) (*LBHProbe, error) {
	s, err := a.compile()
	if err != nil {
		return nil, err
	}
	return &LBHProbe{s: s}, nil
}

// Words is the stepper's words().
func (p *LBHProbe) Words() int { return p.s.words() }

// Take is the stepper's take.
func (p *LBHProbe) Take(st []int64, now, cost int64, commit bool) LBHOutcome {
	o := p.s.take(st, now, cost, commit)
	return LBHOutcome{o.allowed, o.remaining, o.resetAfter, o.retryAfter, o.delay}
}

// Refund is the stepper's refund.
func (p *LBHProbe) Refund(st []int64, now, taken, cost int64) { p.s.refund(st, now, taken, cost) }

// IdleAt is the stepper's idleAt.
func (p *LBHProbe) IdleAt(st []int64) int64 { return p.s.idleAt(st) }
