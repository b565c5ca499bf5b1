package core

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/floodgate-go/floodgate/core/store"
)

// Observer sees what limiters decide and what happens to their stores,
// for metrics, traces and logs. It never sees a key.
//
// A [Limiter] given one by [WithObserver] calls Decided after every take
// ([Limiter.Allow], [Limiter.AllowN], [Limiter.Take]); peeks, refunds and
// resets are not decisions and are not reported; a take that fails while
// its context was canceled (its caller gone) is [VerdictAbandoned], not
// failed (a deadline that ends it is); a take asked under [WithMaxDelay] is reported as
// decided, a denial when its delay was too long. A store that changes state
// (the Redis store losing Redis, say) calls StoreChanged once per change,
// when the observer is given to it too (see the store's options). Both are
// called synchronously, Decided on the deciding goroutine, StoreChanged
// possibly under the store's locks: keep them short, never block, and never
// call back into the limiter or the store. Implementations must be safe for
// concurrent use.
//
// A Limiter without an observer pays one nil check per decision; with
// one, a [Decision] passed by value (no allocation).
type Observer interface {
	// Decided reports one decision. ctx is the one the decision was asked
	// with (a request's, carrying its trace span, say).
	Decided(ctx context.Context, d Decision)
	// StoreChanged reports one change of a store's state.
	StoreChanged(e StoreEvent)
}

// Decision is what an [Observer] learns of one take. It holds no key.
type Decision struct {
	// Policy is the policy's name.
	Policy string
	// Limit is the index of the binding limit in the policy (see
	// [Result]) and LimitName its name; -1 and "" when the decision
	// failed (Err is set).
	Limit     int
	LimitName string
	// Verdict says whether the take was admitted, shaped, denied, or
	// failed with Err.
	Verdict Verdict
	// Cost is the cost asked for.
	Cost int64
	// Remaining, RetryAfter and Delay are the Result's.
	Remaining  int64
	RetryAfter time.Duration
	Delay      time.Duration
	// Store names the store's kind: "memory" for a [MemoryStore], the
	// value of its Kind method for a store that has one ("redis"), else its
	// Go type.
	Store string
	// Source says what decided: the store, a local cache of it, or its
	// fallback while it could not be reached.
	Source Source
	// Latency is how long the store took to decide, for stores other than
	// the in-memory one (which decides in-process in tens of nanoseconds:
	// measuring it would cost more than the decision; its Latency is 0).
	Latency time.Duration
	// Err is the decision's error, when Verdict is [VerdictFailed] or
	// [VerdictAbandoned].
	Err error
	// ShadowDenied names the policy's shadow limits that would have
	// denied the take (see [Limit.Shadow]), whatever the Verdict; nil when
	// none would, or the policy has none. The slice is shared: never
	// modify it. Verdict, Limit and the rest are the enforced limits'
	// alone.
	ShadowDenied []string
	// Override reports a decision of a policy an [Overrides] provider
	// gave (not its default's): its name comes from the provider's data,
	// one per tenant it may be, so that an exporter labelling decisions by
	// policy bounds such names apart from the limiters' own, lest tenants
	// coming and going crowd those out.
	Override bool
}

// Verdict is what a decision came to.
type Verdict uint8

const (
	// VerdictAllowed is an admission without delay.
	VerdictAllowed Verdict = iota
	// VerdictShaped is an admission with a Delay to wait out first
	// ([LeakyBucket]).
	VerdictShaped
	// VerdictDenied is a denial.
	VerdictDenied
	// VerdictFailed is a decision that returned an error (a store that
	// failed closed, an invalid cost, a clock out of range).
	VerdictFailed
	// VerdictAbandoned is a take whose caller went away (its context
	// canceled: a client that hung up) while the store decided it. No
	// fault of the store's, so not VerdictFailed, which any client could
	// then raise at will; but the store may have applied the take, so it
	// is reported: hang-ups that spend a key's budget stay visible.
	VerdictAbandoned
)

// String returns "allowed", "shaped", "denied", "error" or "abandoned".
func (v Verdict) String() string {
	switch v {
	case VerdictAllowed:
		return "allowed"
	case VerdictShaped:
		return "shaped"
	case VerdictDenied:
		return "denied"
	case VerdictFailed:
		return "error"
	case VerdictAbandoned:
		return "abandoned"
	}
	return "unknown"
}

// Source says what decided a [Result]: the store, a local cache of it, or
// its failure mode (a store sets [store.Decision.Source]).
type Source = store.Source

// The sources of a decision.
const (
	SourceStore    = store.SourceStore
	SourceCache    = store.SourceCache
	SourceFallback = store.SourceFallback
)

// Source returns what decided the result.
func (r *Result) Source() Source { return r.source }

// StoreEvent is one change of a store's state, reported to an [Observer].
type StoreEvent struct {
	// Store names the store's kind (see Decision.Store).
	Store string
	// Instance tells the store from the others of its kind in the
	// process (two Redis stores, say), each reporting its own changes: a
	// number the store chose, unique among them; 0 for a store that does
	// not tell. An observer keeps each instance's state apart, so that
	// one store coming back does not hide another still down.
	Instance uint64
	// Change is what changed.
	Change StoreChange
	// Mode names what decides while the store is unreachable
	// ("fail-closed", "fail-open", "local"), and Fallback reports whether
	// that is a fallback deciding (anything but failing closed).
	Mode     string
	Fallback bool
	// Err is the fault behind a StoreUnreachable, StoreKeyConflict or
	// StoreErrorReply, when there is one.
	Err error
	// At is when the change was seen.
	At time.Time
}

// StoreChange is what a [StoreEvent] reports.
type StoreChange uint8

const (
	// StoreUnreachable: the store stopped using its backend (Redis
	// unreachable, its circuit breaker open); the failure mode decides.
	StoreUnreachable StoreChange = iota + 1
	// StoreReachable: the store is back on its backend.
	StoreReachable
	// StoreSlow: the round trip to the backend is not below the
	// decisions' deadline any more.
	StoreSlow
	// StoreSlowEnded: the round trip is below the deadline again.
	StoreSlowEnded
	// StoreKeyConflict: a key of the store holds a value of another type
	// (something else writes under its prefix); reported once.
	StoreKeyConflict
	// StoreEvicting: the backend may evict the store's keys under memory
	// pressure (a Redis maxmemory-policy other than noeviction).
	StoreEvicting
	// StoreErrorReply: decisions fail with an error reply that is no
	// fault of the link (an ACL refusing the scripts, say), so the
	// failure mode does not decide them: they fail, and FailOpen admits
	// every one; reported once, with the error.
	StoreErrorReply
	// StoreClosed: the store was closed (its Close called) and reports
	// nothing more: an observer forgets its state (an outage it
	// reported does not outlive it). Reported once, whatever the state.
	StoreClosed
)

// String returns the change's name: "unreachable", "reachable", "slow",
// "slow-ended", "key-conflict", "evicting", "error-reply" or "closed".
func (c StoreChange) String() string {
	switch c {
	case StoreUnreachable:
		return "unreachable"
	case StoreReachable:
		return "reachable"
	case StoreSlow:
		return "slow"
	case StoreSlowEnded:
		return "slow-ended"
	case StoreKeyConflict:
		return "key-conflict"
	case StoreEvicting:
		return "evicting"
	case StoreErrorReply:
		return "error-reply"
	case StoreClosed:
		return "closed"
	}
	return "unknown"
}

// WithObserver makes the limiter report every take to o (see [Observer]).
// A nil o means none.
func WithObserver(o Observer) Option { return func(c *limiterConfig) { c.observer = o } }

// storeKind names s for observers (see Decision.Store).
func storeKind(s Store) string {
	switch s := s.(type) {
	case *MemoryStore:
		return "memory"
	case interface{ Kind() string }:
		return s.Kind()
	}
	return fmt.Sprintf("%T", s)
}

// takeObserved is Take's path for a limiter with an observer, shadow
// limits or a heavy-hitter sketch, other than the in-memory store's hot
// path: the store's latency measured for an observer.
func (l *Limiter) takeObserved(ctx context.Context, b *binding, key string, cost int64, res *Result) error {
	if cost < 1 {
		*res = Result{}
		err := fmt.Errorf("core: cost %d: %w", cost, ErrInvalidCost)
		l.after(ctx, b, key, 0, cost, res, 0, err, true)
		return err
	}
	timed := b.mem == nil && l.obs != nil
	var start time.Time
	if timed {
		start = time.Now()
	}
	var sh *shadowRun
	if b.mem == nil && b.shadow != nil {
		sh = l.startShadows(ctx, b, store.OpTake, key, cost)
	}
	err := l.doOn(ctx, b, store.Request{Op: store.OpTake, Key: key, Cost: cost}, 0, res)
	var lat time.Duration
	if timed {
		lat = time.Since(start)
	}
	if sh != nil {
		sh.finish(err, res)
	}
	if err == nil {
		l.capDelay(ctx, key, res)
	}
	l.after(ctx, b, key, 0, cost, res, lat, err, sh == nil)
	return err
}

// after completes a take of key (of in-memory hash h, or 0: not computed)
// that the enforced limits decided into res (or failed with err): its
// shadow limits decide (unless shadows is false: they have decided
// already), the heavy-hitter sketch counts it, and the observer learns of
// it: one that failed while ctx was canceled as abandoned (a client that
// hung up during the store's round trip is no fault of the store, and
// counting it a failed decision would let any client raise the error
// figure operators alert on; yet the store may have applied it).
func (l *Limiter) after(ctx context.Context, b *binding, key string, h uint64, cost int64, res *Result, lat time.Duration, err error, shadows bool) {
	abandoned := err != nil && errors.Is(ctx.Err(), context.Canceled)
	if err == nil {
		if shadows && b.shadow != nil {
			l.decideShadows(ctx, b, store.OpTake, key, h, cost, res)
		}
		if l.top != nil {
			l.top.add(key, res.at, res.Allowed)
		}
	} else if abandoned && l.top != nil {
		// Counted, as the observer reports it: a client hanging up on
		// every take must not hide from the top keys.
		l.top.count(key, l.now(), takeAbandoned)
	}
	if l.obs != nil {
		l.observe(ctx, b, res, cost, lat, err)
	}
}

// observe reports a take of cost to the limiter's observer.
func (l *Limiter) observe(ctx context.Context, b *binding, res *Result, cost int64, lat time.Duration, err error) {
	d := Decision{
		Policy: b.policy.name, Limit: int(res.bind), LimitName: res.Name, Cost: cost,
		Remaining: res.Remaining, RetryAfter: res.RetryAfter, Delay: res.Delay,
		Store: l.kind, Source: res.source, Latency: lat, Err: err,
		ShadowDenied: b.policy.shadowDeniedNames(res), Override: l.override,
	}
	switch {
	case err != nil:
		d.Verdict, d.Limit, d.LimitName, d.Remaining, d.ShadowDenied = VerdictFailed, -1, "", 0, nil
		if errors.Is(ctx.Err(), context.Canceled) {
			d.Verdict = VerdictAbandoned
		}
	case !res.Allowed:
		d.Verdict = VerdictDenied
	case res.Delay > 0:
		d.Verdict = VerdictShaped
	}
	l.obs.Decided(ctx, d)
}
