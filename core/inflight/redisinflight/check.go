package redisinflight

import (
	"context"
	"errors"

	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/redischeck"
	"github.com/floodgate-go/floodgate/internal/redisfault"
)

// Check verifies, for use at start-up, what redisstore.Store.Check does:
// that Redis answers (an error wrapping redisstore.ErrUnavailable
// otherwise), that the round trip, the shortest of three PINGs, is below
// Options.Timeout (an error wrapping redisstore.ErrTimeoutBelowRTT), and
// that a real round trip of the limiter's scripts passes: an Acquire,
// a renewal and a Release of a lease of a millisecond on a key no limited
// key maps to. An ACL forbidding the scripts (or a command of theirs)
// answers PING all the same, and then fails every call: FailOpen would
// grant every slot, FailClosed refuse every one. It then reads
// maxmemory-policy (tolerating a Redis whose CONFIG is disabled) and logs
// a warning when it may evict the leases (any policy but noeviction: every
// lease set has a TTL, so volatile-* policies evict them too), reported
// by Stats. A lease set evicted forgets the slots held: the limit is
// silently lifted for its key.
func (l *Limiter) Check(ctx context.Context) error {
	if l.zero() {
		return errZeroLimiter
	}
	policy, err := redischeck.Check{
		What: "redisinflight", Client: l.client, Timeout: l.opts.Timeout,
		Unavailable: redisstore.ErrUnavailable, BelowRTT: redisstore.ErrTimeoutBelowRTT,
		Unreachable: func(err error) bool {
			return errors.Is(err, redisstore.ErrUnavailable) || redisfault.Unreachable(err)
		},
		Probe: l.probe,
		Log:   l.logger(), Failing: "under FailOpen, every call would be admitted",
	}.Run(ctx)
	if err == nil && policy != "" {
		l.policy.Store(&policy)
	}
	return err
}

// probe runs each of the limiter's scripts once, as its calls do, on a
// set no limited key maps to (their sets are named by a hex digest): an
// Acquire of a lease of a millisecond, removing an unreleased lease and
// leaving its tombstone (every command a cancellation sends too), its
// renewal, its release; then it removes the tombstone.
func (l *Limiter) probe(ctx context.Context) error {
	rk := l.opts.Prefix + "c{floodgate-check}"
	const leaseUS = 1000
	member, gone := newMember(leaseUS), newMember(leaseUS)
	keys := []string{rk}
	tomb := l.opts.Prefix + "x{floodgate-check}:" + member
	goneTomb := l.opts.Prefix + "x{floodgate-check}:" + gone
	if err := acquireScript.Run(ctx, l.client, []string{rk, tomb, goneTomb}, 1, leaseUS, member, l.now(), gone).Err(); err != nil {
		return err
	}
	if err := renewScript.Run(ctx, l.client, keys, member, leaseUS, l.now()).Err(); err != nil {
		return err
	}
	if err := l.client.ZRem(ctx, rk, member).Err(); err != nil {
		return err
	}
	// The tombstone left lives a millisecond; removed at once, so that
	// Check leaves no key behind however soon Redis is read after it
	// (best effort: an ACL without DEL leaves it to its TTL).
	_ = l.client.Del(ctx, goneTomb).Err()
	return nil
}

// Stats is a snapshot of a limiter's health.
type Stats struct {
	// Down is true while calls go to the failure mode without Redis (the
	// circuit breaker is open or half-open).
	Down bool
	// EvictionPolicy is Redis's maxmemory-policy as read by Check; "" if
	// not read.
	EvictionPolicy string
	// Evicts is true when EvictionPolicy may evict the leases (any but
	// noeviction): slots held can be silently forgotten under memory
	// pressure.
	Evicts bool
}

// Stats returns the limiter's current figures.
func (l *Limiter) Stats() Stats {
	if l.zero() {
		return Stats{Down: true}
	}
	st := Stats{Down: !l.br.Closed()}
	if p := l.policy.Load(); p != nil {
		st.EvictionPolicy, st.Evicts = *p, redischeck.Evicts(*p)
	}
	return st
}
