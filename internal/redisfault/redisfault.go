// Package redisfault tells floodgate's Redis components (core/redisstore,
// core/inflight/redisinflight) what an error of a round trip means: Redis
// cannot decide now (a fault: the failure mode), a function or script it
// does not hold, a key of another type, or another error reply.
package redisfault

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/redis/go-redis/v9"
)

// Class is what an error of a round trip means.
type Class uint8

// The classes.
const (
	None     Class = iota // no error
	Fault                 // Redis cannot decide now: the failure mode, and the breaker counts it
	Missing               // the function or script is not loaded: load it and retry once
	Conflict              // WRONGTYPE: a key of the component holds another type (misconfiguration)
	Other                 // any other error reply (a script error, NOPERM): an error, or FailOpen's admission
)

// faultPrefixes are the error replies of a Redis that cannot serve writes
// now, each for a reason the operator or the cluster fixes, not the
// request: a replica after a failover (READONLY), maxmemory reached with a
// noeviction policy (OOM), a dataset loading (LOADING), a busy script or
// module (BUSY), a Cluster without coverage (CLUSTERDOWN), a slot in
// migration (TRYAGAIN), redirections left after the Cluster client's own
// redirects, or reaching a standalone client (MOVED, ASK), a replica that
// lost its master (MASTERDOWN), min-replicas-to-write unmet
// (NOREPLICAS), and a failed RDB save or AOF write refusing writes (MISCONF:
// stop-writes-on-bgsave-error, a full or lost disk).
var faultPrefixes = [...]string{"READONLY", "OOM", "LOADING", "BUSY", "CLUSTERDOWN", "TRYAGAIN", "MOVED", "ASK",
	"MASTERDOWN", "NOREPLICAS", "MISCONF"}

// Classify returns err's class.
func Classify(err error) Class {
	switch {
	case err == nil:
		return None
	case Unreachable(err):
		return Fault
	case IsMissing(err):
		return Missing
	}
	msg := err.Error()
	if HasWord(msg, "WRONGTYPE") {
		return Conflict
	}
	for _, p := range faultPrefixes {
		if HasWord(msg, p) {
			return Fault
		}
	}
	return Other
}

// HasWord reports whether msg starts with the error code w, as a word
// ("BUSY Redis is busy", not "BUSYKEY"); a script's error carries the
// code of the command that failed in it, at the start of the message.
func HasWord(msg, w string) bool {
	return strings.HasPrefix(msg, w) && (len(msg) == len(w) || msg[len(w)] == ' ')
}

// SlotLocal reports an error reply about one hash slot of a Cluster, not
// Redis as a whole: the slot is migrating (TRYAGAIN: a call's keys are
// split between two nodes, or new on the importing one), or redirections
// were left after the client's own (MOVED, ASK). The call meeting it goes
// to the failure mode; a breaker counts it as a blip, for a routine
// resharding must not turn every call to the failure mode. A storm of
// them (nothing else answered) opens it all the same.
func SlotLocal(err error) bool {
	if err == nil || Unreachable(err) {
		return false
	}
	msg := err.Error()
	return HasWord(msg, "TRYAGAIN") || HasWord(msg, "MOVED") || HasWord(msg, "ASK")
}

// IsMissing reports an FCALL of a function, or an EVALSHA of a script,
// that Redis does not hold; an FCALL that Redis does not know (before 7.0)
// too.
func IsMissing(err error) bool {
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

// Unreachable reports whether err means Redis could not be reached or did
// not answer in time, as opposed to an error reply.
func Unreachable(err error) bool {
	if err == nil {
		return false
	}
	var ne net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, redis.ErrClosed), errors.Is(err, redis.ErrPoolTimeout),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE), errors.As(err, &ne):
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "connection refused") || strings.Contains(msg, "use of closed network connection")
}
