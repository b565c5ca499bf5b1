package redisinflight

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/floodgate-go/floodgate/core/inflight"
	"github.com/floodgate-go/floodgate/core/redisstore"
	"github.com/floodgate-go/floodgate/internal/redisbound"
	"github.com/floodgate-go/floodgate/internal/redisfault"
	"github.com/redis/go-redis/v9"
)

// Acquire takes a slot of key, or fails at once with inflight.ErrFull
// when Limit leases of key are live. When Redis cannot decide, the
// failure mode answers (see the package documentation). A nil or zero
// Limiter (not made by New) fails with an error wrapping
// core.ErrInvalidConfig.
func (l *Limiter) Acquire(ctx context.Context, key string) (*inflight.Slot, error) {
	if l.zero() {
		return nil, errZeroLimiter
	}
	s, _, err := l.try(ctx, key, l.calls, false)
	return s, err
}

// try takes a slot of key, its round trip on a token of tokens (l.calls,
// or l.polls for a waiting head's poll). When every slot is held it
// returns inflight.ErrFull and the time until the first lease ends. A
// retry, a waiting head's try after its first, that finds tokens spent
// returns l.errBusy, not the failure mode's answer: Redis was not asked
// for want of a token, not because it failed, and the head waits on.
func (l *Limiter) try(ctx context.Context, key string, tokens chan struct{}, retry bool) (*inflight.Slot, time.Duration, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	limit := l.limit
	if l.local != nil {
		// This Acquire counts as held in Redis from now until it is
		// known to have taken no lease, so that an Acquire decided
		// locally meanwhile (MaxCalls outstanding, the breaker opened
		// by others) leaves room for it; and the local slots of key this
		// process still holds, granted while Redis could not decide,
		// count against the limit. (Counted in this order, one of two
		// such Acquires always sees the other.)
		l.hold(key, 1)
		if limit -= l.local.InFlight(key); limit <= 0 {
			l.hold(key, -1)
			return nil, 0, inflight.ErrFull
		}
	}
	member := newMember(l.leaseUS)
	rk, tomb := l.redisKeys(key, member)
	l.touchLost(rk) // (its key in use: the leases a full table forgets last)
	// The lease ends a Lease after the script runs, after sent: with
	// Options.Clock, a Lease after sent itself, the script's instant. One
	// reading: a goroutine stalled between two would count the lease to
	// end later than Redis ends it, by the stall.
	sent := l.clock()
	var gone []any // the leases of rk remembered as unreleased it removes
	v, err := l.call(ctx, tokens, func(ctx context.Context) (any, error) {
		// Read only for a round trip that goes to Redis (not while the
		// breaker is open): an Acquire decided without Redis pays
		// nothing for them.
		var keys []string
		gone, keys = l.unreleased(rk, []string{rk, tomb})
		args := append([]any{limit, l.leaseUS, member, l.nowAt(sent)}, gone...)
		return acquireScript.Run(ctx, l.client, keys, args...).Result()
	}, func(v any, err error, abandoned bool) {
		// (On f's goroutine, after it: gone is f's.)
		if err == nil {
			l.forget(rk, gone) // (the script ran: their leases are gone)
		}
		switch {
		case !l.orphaned(v, err, abandoned):
		case err != nil && unreached(err):
			// Only an earlier attempt may have run the script (see
			// orphaned): no round trip more to a Redis that this one
			// could not reach, or a pool that had no connection for it.
			// (Not when the context ended the attempts, the deadline
			// cutting a retry's back-off: Redis may well answer.)
			l.unreleasedLease(rk, member, tomb, sent.Add(l.opts.Lease))
		default:
			l.cancel(rk, tomb, member, sent.Add(l.opts.Lease))
		}
	})
	if err != nil {
		l.hold(key, -1) // (a lease it may yet take is cancelled, or ends by its TTL: held by nobody)
		if retry && errors.Is(err, l.errBusy) {
			return nil, 0, err
		}
		s, err := l.fallback(ctx, key, err)
		return s, 0, err
	}
	r, ok := v.([]any)
	if ok && len(r) >= 2 && r[0] == int64(1) {
		return l.slot(key, rk, member, sent), 0, nil // (counted held since it was sent)
	}
	l.hold(key, -1)
	if !ok || len(r) < 2 {
		return nil, 0, fmt.Errorf("redisinflight: unexpected reply %v", v)
	}
	var wait time.Duration
	if len(r) == 3 {
		if us, ok := r[2].(int64); ok && us > 0 {
			wait = time.Duration(us) * time.Microsecond
		}
	}
	return nil, wait, inflight.ErrFull
}

// now is the script's clock argument: "" for Redis TIME.
func (l *Limiter) now() string {
	if l.opts.Clock == nil {
		return ""
	}
	return strconv.FormatInt(l.opts.Clock.Now().UnixMicro(), 10)
}

// nowAt is the script's clock argument for t, a reading of l.clock: ""
// for Redis TIME.
func (l *Limiter) nowAt(t time.Time) string {
	if l.opts.Clock == nil {
		return ""
	}
	return strconv.FormatInt(t.UnixMicro(), 10)
}

// redisKeys returns rk, the sorted set of key's leases under this
// limiter's limit, and tomb, the tombstone of its lease member (see
// Limiter.cancel), in rk's Cluster slot.
func (l *Limiter) redisKeys(key, member string) (rk, tomb string) {
	h := sha256.Sum256([]byte(key))
	tag := "{" + hex.EncodeToString(h[:16]) + "}"
	return l.opts.Prefix + "c" + tag + l.keyEnd, l.opts.Prefix + "x" + tag + ":" + member
}

// orphaned reports whether an Acquire's round trip may have left a lease
// that nobody holds: it returned one after its caller had given up
// (abandoned), or it failed with its outcome unknown (the script may have
// run, or may run yet: its bytes may be on their way to Redis). An error
// reply, or an error of a round trip that surely never reached Redis,
// took no lease; but a client that sends a command again (see
// Limiter.resends) reports only its last attempt's error, and an earlier
// attempt may have run the script: then every fault may have left one.
func (l *Limiter) orphaned(v any, err error, abandoned bool) bool {
	if err != nil {
		if l.resends {
			return classify(err) == redisfault.Fault
		}
		return redisfault.Unreachable(err) && !unsent(err)
	}
	r, ok := v.([]any)
	return abandoned && ok && len(r) > 0 && r[0] == int64(1)
}

// mayResend reports whether client may send a command again after an
// attempt that may have reached Redis (its retries, a Cluster's
// redirections after a broken connection), reporting only the last
// attempt's error: true for clients it cannot tell.
func mayResend(client redis.UniversalClient) bool {
	switch c := client.(type) {
	case *redis.Client:
		return c.Options().MaxRetries > 0
	case *redis.ClusterClient:
		return c.Options().MaxRetries > 0 || c.Options().MaxRedirects > 0
	case *redis.Ring:
		return c.Options().MaxRetries > 0
	}
	return true
}

// unsent reports an error of a round trip that never reached Redis: a
// dial that failed or was refused, the pool's wait (ErrPoolTimeout, or
// the context's own error: go-redis checks the context only before it
// sends; a read or write cut by the context's deadline fails with the
// connection's *net.OpError), a closed client.
func unsent(err error) bool {
	var op *net.OpError
	isOp := errors.As(err, &op)
	ctxErr := errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, redis.ErrPoolTimeout) ||
		errors.Is(err, redis.ErrClosed) || isOp && op.Op == "dial" || ctxErr && !isOp
}

// unreached reports an error of a round trip that never reached Redis
// because Redis, or a connection to it, could not be had (see unsent): a
// dial that failed, the pool's wait, a closed client; not the context's
// own error, which says only that the round trip's deadline (or its
// caller) ended the attempts, on a Redis that may answer.
func unreached(err error) bool {
	var op *net.OpError
	if errors.As(err, &op) {
		return unsent(err)
	}
	return unsent(err) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// cancel removes the lease member of rk that an Acquire whose caller gave
// up may have taken, and leaves its tombstone for a Lease, so that the
// script, if it reaches Redis after the cancellation, takes nothing (see
// lua/cancel.lua). It runs in the round trip's goroutine, holding its
// token of l.calls (so that at most MaxCalls round trips and
// cancellations are outstanding), within the bound of a round trip. It
// sends nothing while the breaker says Redis is unreachable. A
// cancellation not sent, or that failed, is remembered as a release that
// did not reach Redis, with its tombstone (see unreleasedLease; the
// lease, if taken, ends after ends): this process's next Acquire of the
// key removes it and leaves the tombstone, once Redis answers, rather
// than the lease being held by nobody for the rest of its Lease (the
// script may reach Redis after that Acquire: a partition's
// retransmission).
func (l *Limiter) cancel(rk, tomb, member string, ends time.Time) {
	if !l.br.Closed() {
		l.unreleasedLease(rk, member, tomb, ends)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), redisbound.RoundTrip(l.opts.Timeout))
	defer cancel()
	// EVAL, not EVALSHA: a NOSCRIPT reply would need a second round trip.
	err := cancelScript.Eval(ctx, l.client, []string{rk, tomb}, member, l.opts.Lease.Milliseconds()).Err()
	if err != nil {
		l.unreleasedLease(rk, member, tomb, ends)
		l.onError(fmt.Errorf("redisinflight: cancelling the lease of an abandoned Acquire (removed by this process's next Acquire of the key, or it ends within Lease): %w", unavailable(err)))
		return
	}
	l.cancelled.Add(1)
}

// newMember names a lease of leaseUS µs: 128 random bits, then "." and
// leaseUS in decimal, which acquire.lua reads: an end more than its own
// lease after now is a clock that went back, while one a Lease of another
// limiter of the set (a reload, a fleet's other processes) is not.
func newMember(leaseUS int64) string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand panics rather)
	// Written into one buffer: one allocation, the string's.
	var m [2*len(b) + 1 + 20]byte // hex, ".", an int64 in decimal
	out := hex.AppendEncode(m[:0], b[:])
	out = append(out, '.')
	return string(strconv.AppendInt(out, leaseUS, 10))
}

// fallback answers an Acquire that met err: the caller's own end, a key
// conflict or another error reply that is not a fault (an error, or
// FailOpen's slot), or a fault decided by the failure mode.
func (l *Limiter) fallback(ctx context.Context, key string, err error) (*inflight.Slot, error) {
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if !errors.Is(err, errShed) {
		l.onError(err)
	}
	fault := false
	switch classify(err) {
	case redisfault.Conflict:
		err = fmt.Errorf("redisinflight: %w: %w", redisstore.ErrKeyConflict, err)
	case redisfault.Other:
		err = fmt.Errorf("redisinflight: %w", err)
	default:
		err, fault = unavailable(err), true
	}
	switch l.opts.FailureMode {
	case redisstore.FailOpen:
		return inflight.NewSlot(func(context.Context) error { return nil }, nil), nil
	case redisstore.FailLocal:
		if fault {
			s, lerr := l.takeLocal(ctx, key)
			if lerr != nil {
				return nil, lerr
			}
			l.step(ctx, "taken")
			return l.localSlot(key, s), nil
		}
	}
	return nil, err
}

// takeLocal takes a slot of key from the local limiter if its share less
// the slots of key this process holds in Redis, or may be taking there,
// leaves room for it. It counts and takes under l.mu, as every local
// Acquire does: two Acquires racing for the last slot never both take it
// and then both give it back, each having counted the other's.
func (l *Limiter) takeLocal(ctx context.Context, key string) (*inflight.Slot, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.held[key]+l.local.InFlight(key) >= l.local.Limit() {
		return nil, inflight.ErrFull
	}
	return l.local.Acquire(ctx, key)
}

// localSlot returns the Slot of s, a slot of key the local limiter
// granted. Its release wakes key's line. A slot dropped unreleased (a
// caller's bug) is released when it is collected, as a dropped slot
// taken in Redis comes back within its lease: the local limiter would
// hold it for the life of the process, and every Acquire of key in Redis
// counts it against the limit (at a limit of 1, the key refused for ever;
// TestAttackDroppedLocalSlotLocksNoKeyOut). s is released once between
// the two (Slot.Release is), by its Release when there is one.
func (l *Limiter) localSlot(key string, s *inflight.Slot) *inflight.Slot {
	var ls *inflight.Slot
	ls = inflight.NewSlot(func(ctx context.Context) error {
		defer l.wake(key)
		err := s.Release(ctx)
		runtime.KeepAlive(ls) // (not collected, its cleanup run, before s is released here)
		return err
	}, nil)
	runtime.AddCleanup(ls, func(s *inflight.Slot) {
		if s.Release(context.Background()) == nil {
			l.wake(key)
		}
	}, s)
	return ls
}

// step runs the test's hook, if any, at step of a local slot.
func (l *Limiter) step(ctx context.Context, step string) {
	if l.localStep != nil {
		l.localStep(ctx, step)
	}
}

// hold adds n to the slots of key this process holds in Redis, or may
// be taking there (an Acquire on its way), counted under FailLocal only
// (see Limiter.held).
func (l *Limiter) hold(key string, n int) {
	if l.held == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if c := l.held[key] + n; c > 0 {
		l.held[key] = c
	} else {
		delete(l.held, key)
	}
}
