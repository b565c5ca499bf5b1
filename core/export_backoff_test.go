package core

// BackoffProbe exposes a compiled Backoff's stepper to the black-box tests
// of Backoff: idleAt, refunds at chosen instants and decisions on a given
// state cannot be observed through a Limiter.
type BackoffProbe struct{ s stepper }

// BackoffOutcome is an outcome with exported fields.
type BackoffOutcome struct {
	Allowed                                  bool
	Remaining, ResetAfter, RetryAfter, Delay int64
}

// NewBackoffProbe compiles b.
func NewBackoffProbe(b Backoff) (*BackoffProbe, error) {
	s, err := b.compile()
	if err != nil {
		return nil, err
	}
	return &BackoffProbe{s: s}, nil
}

// Words is the stepper's words().
func (p *BackoffProbe) Words() int { return p.s.words() }

// Take is the stepper's take.
func (p *BackoffProbe) Take(st []int64, now, cost int64, commit bool) BackoffOutcome {
	o := p.s.take(st, now, cost, commit)
	return BackoffOutcome{o.allowed, o.remaining, o.resetAfter, o.retryAfter, o.delay}
}

// Refund is the stepper's refund.
func (p *BackoffProbe) Refund(st []int64, now, taken, cost int64) { p.s.refund(st, now, taken, cost) }

// IdleAt is the stepper's idleAt.
func (p *BackoffProbe) IdleAt(st []int64) int64 { return p.s.idleAt(st) }
