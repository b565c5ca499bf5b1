package redisstore

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/floodgate-go/floodgate/internal/circuit"
	"github.com/redis/go-redis/v9"
)

// errClass is what an error of a round trip means for the store.
type errClass uint8

const (
	classNone     errClass = iota // no error
	classFault                    // Redis cannot decide now: the failure mode, and the breaker counts it
	classMissing                  // the function or script is not loaded: load it and retry once
	classConflict                 // WRONGTYPE: a key of the store holds another type (misconfiguration)
	classOther                    // any other error reply (a script error): an error, or FailOpen's admission
)

// faultPrefixes are the error replies of a Redis that cannot serve writes
// now, each for a reason the operator or the cluster fixes, not the
// request: a replica after a failover (READONLY), maxmemory reached with a
// noeviction policy (OOM), a dataset loading (LOADING), a busy script or
// module (BUSY), a Cluster without coverage (CLUSTERDOWN), a slot in
// migration (TRYAGAIN), redirections left after the Cluster client's own
// redirects, or reaching a standalone client (MOVED, ASK), a replica that
// lost its master (MASTERDOWN), and min-replicas-to-write unmet
// (NOREPLICAS).
var faultPrefixes = [...]string{"READONLY", "OOM", "LOADING", "BUSY", "CLUSTERDOWN", "TRYAGAIN", "MOVED", "ASK",
	"MASTERDOWN", "NOREPLICAS"}

// classify returns err's class.
func classify(err error) errClass {
	switch {
	case err == nil:
		return classNone
	case unreachable(err):
		return classFault
	case isMissing(err):
		return classMissing
	}
	msg := err.Error()
	if hasWord(msg, "WRONGTYPE") {
		return classConflict
	}
	for _, p := range faultPrefixes {
		if hasWord(msg, p) {
			return classFault
		}
	}
	return classOther
}

// hasWord reports whether msg starts with the error code w, as a word
// ("BUSY Redis is busy", not "BUSYKEY"); a script's error carries the
// code of the command that failed in it, at the start of the message.
func hasWord(msg, w string) bool {
	return strings.HasPrefix(msg, w) && (len(msg) == len(w) || msg[len(w)] == ' ')
}

// slotLocal reports an error reply about one hash slot of a Cluster, not
// Redis as a whole: the slot is migrating (TRYAGAIN: a call's keys are
// split between two nodes, or new on the importing one), or redirections
// were left after the client's own (MOVED, ASK). The decision meeting it
// goes to the failure mode; the breaker counts it as a blip (see soft),
// for a routine resharding must not turn the store's every decision to the
// failure mode. A storm of them (nothing else answered) opens it all the
// same.
func slotLocal(err error) bool {
	if err == nil || unreachable(err) {
		return false
	}
	msg := err.Error()
	return hasWord(msg, "TRYAGAIN") || hasWord(msg, "MOVED") || hasWord(msg, "ASK")
}

// isMissing reports an FCALL of a function, or an EVALSHA of a script,
// that Redis does not hold; an FCALL that Redis does not know (before 7.0)
// too.
func isMissing(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, redis.ErrNoScript) || redis.HasErrorPrefix(err, "NOSCRIPT") {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "Function not found") || strings.Contains(msg, "unknown command 'FCALL'") ||
		strings.Contains(msg, "unknown command `FCALL`")
}

// unreachable reports whether err means Redis could not be reached or did
// not answer in time, as opposed to an error reply.
func unreachable(err error) bool {
	if err == nil {
		return false
	}
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled), errors.Is(err, ErrUnavailable),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, redis.ErrClosed), errors.Is(err, redis.ErrPoolTimeout),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE), errors.As(err, &ne):
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "connection refused") || strings.Contains(msg, "use of closed network connection")
}

// soft reports a fault that may be a blip, which the circuit breaker
// counts up to Options.Failures: a deadline missed, or an error reply
// about one Cluster slot (see slotLocal).
func soft(err error) bool { return circuit.Soft(err) || slotLocal(err) }
