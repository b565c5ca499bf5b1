package core

import (
	"fmt"
	"math"
	"time"
)

// MaxBackoffFree is the largest Free of a [Backoff].
const MaxBackoffFree = 1 << 32

// Backoff throttles failures with exponential lockouts: Free failures per
// Window cost nothing; after them each further failure locks the key for
// Base·2^k, at most Max, where k counts the lockouts already set since the
// key was last forgiven; Forgive without any failure makes the key fresh.
//
// A take of cost c counts c failed attempts (a login guard takes before it
// checks the credentials and refunds the take when they are right, so a
// success costs nothing). While the key is locked (now < until) a take is
// denied with RetryAfter = until − now, exactly. Otherwise it is admitted:
// the attempt that reaches beyond Free is itself admitted (it is a failure
// already made) and sets the lock that starts at now. So with Free = 5, six
// failures pass back to back, then the key is locked for Base; the next
// failure after the lock sets 2·Base, then 4·Base, and so on up to Max.
//
// A take of cost c is decided exactly as c failures of cost 1 at the same
// instant: it passes only if every one of them would, and then leaves the
// state they leave. So it passes only while the key is not locked and, for
// c > 1, only if its first c−1 failures stay within Free (the failure that
// reaches beyond Free sets a lock, which denies the ones after it); it then
// sets at most one lock. A denied take of cost c > 1 that only its size
// keeps out is told the exact wait until the count starts again (the
// window's end, or forgiveness if sooner), and never less than the lock. A
// cost above Free is denied with [Never].
//
// Failures are counted toward Free in a fixed window of Window anchored at
// the first failure counted in it: when it ends, the count starts again at
// the next failure (so failures older than Window never count toward Free,
// though more may pass close together around a window's end: with Forgive
// at least Window, any interval of one Window holds at most 2·(Free+1)
// failures, the Free+1 of each of two windows, plus one at the end of each
// lock it holds, which is at most 1 + the number of successive lockouts,
// min(Base·2^k, Max) for k = 0, 1, …, whose sum fits in Window). The
// lockout exponent k is not reset by the window, only by forgiveness: the
// key is fresh, exactly as a key never seen, once Forgive has passed since
// its latest failure (or, while no lockout has been set, as soon as its
// window ends, whichever comes first).
//
// Remaining is the free failures left in the window (0 while locked or once
// Free are spent), ResetAfter the time until the key is fresh. The limit's
// quota and window are Free and Window.
//
// A caller whose now is older than the latest failure the key has counted
// is decided as of that failure's instant, exactly as the newest caller
// would be (the lock and the forgiveness run from instants the key has
// seen, never from the caller's); its RetryAfter and ResetAfter are
// measured from its own now, as every algorithm's are, so they are exact
// on its clock.
//
// Refund gives back a take exactly when it is the key's latest (a take then
// its refund restore a state that decides every later call as if the take
// never happened): its failures, the lockout it set, and the forgiveness
// clock. An earlier take of the current window is given back as failures
// and lockout count only, its lock and the forgiveness clock stay (an
// answer that is stricter, never more lenient); a take of an earlier
// window, or of a key since forgiven, gives nothing back.
//
// The state is six integers (the latest failure, the one before it, the
// window start, the failures counted in it, the lockouts set, the lock
// end), so that stores running the step elsewhere can mirror it.
type Backoff struct {
	// Free is how many failures per Window pass without a lockout, in
	// [1, MaxBackoffFree].
	Free int64
	// Window is the length of the window Free is counted in; 0 means one
	// hour.
	Window time.Duration
	// Base is the first lockout; 0 means one second.
	Base time.Duration
	// Max caps a lockout; 0 means 15 minutes, or Base if that is longer.
	// It must be at least Base.
	Max time.Duration
	// Forgive is the quiet time after a key's latest failure from which it
	// is fresh again; 0 means 24 hours, or Max if that is longer. It must
	// be at least Max, so that forgiveness never cuts a lock short.
	Forgive time.Duration
}

// Validate reports whether b is usable.
func (b Backoff) Validate() error { _, err := b.compile(); return err }

// WithDefaults returns b with its zero durations replaced by the defaults:
// Window 1 h, Base 1 s, Max 15 min (or Base if longer), Forgive 24 h (or Max
// if longer). Stores that run the algorithm outside Go start from it.
func (b Backoff) WithDefaults() Backoff {
	if b.Window == 0 {
		b.Window = time.Hour
	}
	if b.Base == 0 {
		b.Base = time.Second
	}
	if b.Max == 0 {
		b.Max = max(15*time.Minute, b.Base)
	}
	if b.Forgive == 0 {
		b.Forgive = max(24*time.Hour, b.Max)
	}
	return b
}

func (b Backoff) value() Algorithm { return b }

func (b Backoff) compile() (stepper, error) {
	if b.Free < 1 || b.Free > MaxBackoffFree {
		return nil, fmt.Errorf("core: Backoff: free %d must be in [1, %d]: %w", b.Free, int64(MaxBackoffFree), ErrInvalidConfig)
	}
	d := b.WithDefaults()
	w, base, mx, fg := d.Window, d.Base, d.Max, d.Forgive
	if err := validWindow("Backoff", w); err != nil {
		return nil, err
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"base", base}, {"max", mx}, {"forgive", fg}} {
		if d.v <= 0 || int64(d.v) > maxSpan {
			return nil, fmt.Errorf("core: Backoff: %s %v must be in (0, 36y]: %w", d.name, d.v, ErrInvalidConfig)
		}
	}
	if mx < base {
		return nil, fmt.Errorf("core: Backoff: max %v is below base %v: %w", mx, base, ErrInvalidConfig)
	}
	if fg < mx {
		return nil, fmt.Errorf("core: Backoff: forgive %v is below max %v: %w", fg, mx, ErrInvalidConfig)
	}
	return &backoffStep{free: b.Free, window: int64(w), base: int64(base), max: int64(mx), forgive: int64(fg)}, nil
}

// Backoff state words. The zero state (no failure counted, no lockout) is
// a key never seen.
const (
	boLast  = iota // instant of the latest counted failure
	boPrev         // boLast before the latest take (for an exact refund)
	boStart        // start of the window failures are counted in
	boN            // failures counted in that window (0: no window open)
	boK            // lockouts set since the key was forgiven
	boUntil        // end of the lock
	boWords
)

// boSat bounds the counters, far beyond any reachable value, so that they
// never overflow.
const boSat = int64(1) << 62

type backoffStep struct {
	noPenalty
	free, window, base, max, forgive int64
}

func (b *backoffStep) words() int { return boWords }

func (b *backoffStep) quota() (int64, time.Duration) { return b.free, time.Duration(b.window) }

// lock returns the k-th lockout (k from 0): min(Base·2^k, Max).
func (b *backoffStep) lock(k int64) int64 {
	if k >= 62 || b.base > b.max>>k {
		return b.max
	}
	return b.base << k
}

func fresh(st []int64) bool { return st[boN] == 0 && st[boK] == 0 }

func (b *backoffStep) idleAt(st []int64) int64 {
	if fresh(st) {
		return math.MinInt64
	}
	at := st[boLast] + b.forgive
	if st[boK] == 0 {
		at = min(at, st[boStart]+b.window)
	}
	return max(at, st[boUntil])
}

// view returns the state as it stands at now (clamped to the latest failure
// seen): a copy that is all zero when the key is fresh, and whose count is
// 0 when its window has ended.
func (b *backoffStep) view(st []int64, now int64) (v [boWords]int64, at int64) {
	if fresh(st) {
		return v, now
	}
	now = max(now, st[boLast])
	if now >= b.idleAt(st) {
		return v, now
	}
	copy(v[:], st)
	if now-v[boStart] >= b.window {
		v[boN] = 0
	}
	return v, now
}

func (b *backoffStep) take(st []int64, now, cost int64, commit bool) outcome {
	// Decided at the clamped instant; waits measured from the caller's own
	// now (raw), as every algorithm measures them.
	raw := now
	v, now := b.view(st, now)
	o := outcome{remaining: b.remaining(&v, now), resetAfter: b.resetAfter(&v, raw)}
	switch {
	case cost == 0:
		o.allowed = true
		return o
	case cost > b.free:
		o.retryAfter = int64(Never)
		return o
	case cost > 1 && v[boN]+cost-1 > b.free:
		// Failures of cost 1 would pass up to the one that sets a lock:
		// the whole cost passes once the count starts again, never
		// before the lock ends.
		o.retryAfter = max(v[boUntil], min(v[boStart]+b.window, b.idleAt(v[:]))) - raw
		return o
	case v[boUntil] > now:
		o.retryAfter = v[boUntil] - raw
		return o
	}
	n := v[boN]
	if n == 0 {
		v[boStart] = now
	}
	v[boN] = min(n+cost, boSat)
	if e := v[boN] - max(n, b.free); e > 0 {
		v[boUntil] = now + b.lock(v[boK]+e-1)
		v[boK] = min(v[boK]+e, boSat)
	}
	v[boPrev], v[boLast] = st[boLast], now
	if fresh(st) || now >= b.idleAt(st) {
		v[boPrev] = now
	}
	o = outcome{allowed: true, remaining: b.remaining(&v, now), resetAfter: b.resetAfter(&v, raw)}
	if commit {
		copy(st, v[:])
	}
	return o
}

func (b *backoffStep) remaining(v *[boWords]int64, now int64) int64 {
	if v[boUntil] > now {
		return 0
	}
	return max(b.free-v[boN], 0)
}

func (b *backoffStep) resetAfter(v *[boWords]int64, now int64) int64 {
	if fresh(v[:]) {
		return 0
	}
	return nonNeg(b.idleAt(v[:]) - now)
}

func (b *backoffStep) refund(st []int64, now, taken, _, cost int64) {
	if fresh(st) {
		return
	}
	now = max(now, st[boLast])
	if now >= b.idleAt(st) || taken < st[boStart] || st[boN] == 0 {
		return
	}
	n := st[boN]
	c := min(max(cost, 0), n)
	e := max(n-max(n-c, b.free), 0)
	st[boN], st[boK] = n-c, max(st[boK]-e, 0)
	// The take is surely the latest when it is the only one counted at its
	// instant (boPrev is older); with several at one instant it may be an
	// earlier one, whose refund must not lift a lock a later take set
	// unless no failure beyond Free is left.
	if taken == st[boLast] && (st[boPrev] != taken || n-c <= b.free) {
		if e > 0 {
			// The lock this take set is lifted: the one before it had
			// ended by the take's instant.
			st[boUntil] = st[boLast]
		}
		st[boLast] = st[boPrev]
	}
	if fresh(st) {
		clear(st[:boWords])
	}
}
