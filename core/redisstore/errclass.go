package redisstore

import (
	"errors"

	"github.com/floodgate-go/floodgate/internal/circuit"
	"github.com/floodgate-go/floodgate/internal/redisfault"
)

// errClass is what an error of a round trip means for the store (see
// redisfault).
type errClass = redisfault.Class

const (
	classNone     = redisfault.None
	classFault    = redisfault.Fault
	classMissing  = redisfault.Missing
	classConflict = redisfault.Conflict
	classOther    = redisfault.Other
)

// classify returns err's class; the store's own ErrUnavailable is a fault.
func classify(err error) errClass {
	if errors.Is(err, ErrUnavailable) {
		return classFault
	}
	return redisfault.Classify(err)
}

// unreachable reports whether err means Redis could not be reached or did
// not answer in time (the store's own ErrUnavailable too), as opposed to
// an error reply.
func unreachable(err error) bool {
	return errors.Is(err, ErrUnavailable) || redisfault.Unreachable(err)
}

var (
	slotLocal = redisfault.SlotLocal
	isMissing = redisfault.IsMissing
)

// soft reports a fault that may be a blip, which the circuit breaker
// counts up to Options.Failures: a deadline missed, or an error reply
// about one Cluster slot (see redisfault.SlotLocal).
func soft(err error) bool { return circuit.Soft(err) || slotLocal(err) }
