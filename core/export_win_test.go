package core

// This file exposes compiled steppers to the black-box tests of the window
// algorithms (FixedWindow, SlidingLog, SlidingWindow, RollingWindow), which
// need to drive states directly: idleAt is not observable through a Limiter.

// WinStep is a compiled algorithm, for tests.
type WinStep struct{ s stepper }

// WinOutcome is one step's verdict, for tests.
type WinOutcome struct {
	Allowed                                  bool
	Remaining, ResetAfter, RetryAfter, Delay int64
}

// WinCompile compiles a.
func WinCompile(a Algorithm) (WinStep, error) {
	s, err := a.compile()
	return WinStep{s}, err
}

// Words is the state size.
func (w WinStep) Words() int { return w.s.words() }

// Take is the stepper's take.
func (w WinStep) Take(st []int64, now, cost int64, commit bool) WinOutcome {
	o := w.s.take(st, now, cost, commit)
	return WinOutcome{o.allowed, o.remaining, o.resetAfter, o.retryAfter, o.delay}
}

// Denied is the stepper's denied.
func (w WinStep) Denied(st []int64, now, cost int64) { w.s.denied(st, now, cost) }

// Refund is the stepper's refund.
func (w WinStep) Refund(st []int64, now, taken, cost int64) { w.s.refund(st, now, taken, cost) }

// IdleAt is the stepper's idleAt.
func (w WinStep) IdleAt(st []int64) int64 { return w.s.idleAt(st) }
