package core

import "time"

// Algorithm is one limit's rule: a validated value whose step is a pure
// function of (state, now, cost). The algorithms of this package are the only
// implementations: every store must know how to apply each of them.
type Algorithm interface {
	// Validate reports whether the parameters are usable; the error wraps
	// [ErrInvalidConfig].
	Validate() error
	// String writes the algorithm in the rate syntax (see "Rate syntax"
	// in the package documentation).
	String() string
	compile() (stepper, error)
	// value returns the algorithm as a value: the receiver itself, or,
	// for a pointer to one of this package's algorithms (a pointer has
	// their value methods too), a copy of what it points to. A policy
	// keeps values only, so that type switches on its algorithms see
	// them, and the caller's later changes to a pointed-to value do not
	// change the policy.
	value() Algorithm
}

// outcome is one algorithm step's verdict. Durations are nanoseconds.
type outcome struct {
	allowed    bool
	remaining  int64
	resetAfter int64
	retryAfter int64
	delay      int64
	// hold is, for an admitted take, how long after the take's instant it
	// still holds part of the state: a refund from then on gives nothing
	// back. 0 means resetAfter.
	hold int64
}

// stepper is a compiled algorithm. Its state is words() int64 words; the all
// zero state is a key never seen. now is Unix nanoseconds and may be older
// than instants the state has seen (callers race): a stepper must never grant
// more for an older now than it would for the newest one it has seen.
type stepper interface {
	words() int
	// take decides taking cost at now. When commit is set and the take is
	// allowed, st is updated; st is never written otherwise. A cost of 0
	// (never committed) reports the state as it stands: allowed, with what
	// remains and when it resets.
	take(st []int64, now, cost int64, commit bool) outcome
	// denied is called for an attempt of cost at now that the policy
	// denied (unless a limit can never grant its cost). An algorithm that
	// penalises denied attempts records it in st when commit is set, sets
	// o to what it decides for the same request once it is recorded, and
	// returns true; the others change nothing and return false.
	denied(st []int64, now, cost int64, commit bool) (outcome, bool)
	// refund gives back cost taken at the instant taken, whose hold on the
	// state ended at until (taken plus the take's hold), as far as st still
	// holds it, and never more than that very take still holds at now.
	// Policy.refund calls it only while now < until.
	refund(st []int64, now, taken, until, cost int64)
	// idleAt is the instant from which st behaves as the zero state.
	idleAt(st []int64) int64
	// forgetCost is what forgetting st at now would admit, in cost units
	// (see forgetcost.go): 0 when st is recovered.
	forgetCost(st []int64, now int64) int64
	// quota is the most granted at once and the time that quota takes to
	// replenish.
	quota() (int64, time.Duration)
}

// noPenalty provides the denied method of algorithms whose denials change
// nothing.
type noPenalty struct{}

func (noPenalty) denied([]int64, int64, int64, bool) (outcome, bool) { return outcome{}, false }

func nonNeg(d int64) int64 {
	if d < 0 {
		return 0
	}
	return d
}
