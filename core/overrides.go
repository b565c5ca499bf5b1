package core

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"
)

// OverrideFunc returns the policy of key's own limit and true, when key
// has one (a tenant with a contract of its own), or false for a key the
// default policy decides. An error (or a panic) makes the policy that
// decided key before (the default policy for a key not yet known) decide
// it until [OverrideOptions].ErrorTTL has passed; an error while ctx has
// ended fails only that decision, with ctx's error.
type OverrideFunc func(ctx context.Context, key string) (*Policy, bool, error)

// Defaults of [OverrideOptions].
const (
	DefaultOverrideTTL         = time.Minute
	DefaultOverrideErrorTTL    = time.Second
	DefaultOverrideMaxKeys     = 1 << 16
	DefaultOverrideMaxPolicies = 256
)

// ErrOverride is wrapped by the errors [OverrideOptions].OnError is told
// of: a provider's error or panic, or an override policy that cannot be
// used (nil, named as the default policy with other limits, one too many).
// A key whose override the provider gave but cannot be used, and that has
// no override of its own known, is not decided by the default: its
// decisions fail with an error wrapping ErrOverride and ErrInvalidConfig.
var ErrOverride = errors.New("core: override not applied: the key's last known policy (or the default) decides")

// errDefaultNamed is limiterOf's error for an override policy named as the
// default policy with other limits: the key is decided by the default, its
// limits as they are now (the provider's copy may be one from before a
// SetPolicy of the default, or a reload), and OnError told.
var errDefaultNamed = errors.New("is named as the default policy, with other limits: the default decides it, with its own")

// errOverrideRefused fails the decisions of a key whose override policy the
// provider gave but Overrides cannot decide (one name more than
// MaxPolicies, one the store refuses), while no override of the key's is known: the default
// may allow it more than its override does. It wraps ErrInvalidConfig, so
// that the middleware answers 500 even when failing open.
var errOverrideRefused = fmt.Errorf("core: a key's override policy cannot be decided (OnError says why; MaxPolicies?), and the default may allow more: refused: %w: %w",
	ErrOverride, ErrInvalidConfig)

// OverrideOptions configures [Overrides]. Zero values keep the defaults.
type OverrideOptions struct {
	// TTL is how long a key's override is cached (default
	// DefaultOverrideTTL): a change at the provider applies to a key
	// within TTL.
	TTL time.Duration
	// NegativeTTL is how long a key without an override is cached as
	// such (default TTL).
	NegativeTTL time.Duration
	// ErrorTTL is how long the key's last known policy (the default for
	// a key not yet known) decides a key after the provider failed for it
	// (default DefaultOverrideErrorTTL), so that a failing provider is not
	// called on every request.
	ErrorTTL time.Duration
	// MaxKeys bounds the keys cached (default DefaultOverrideMaxKeys),
	// each as a 128-bit keyed hash, never the key itself: the cache's
	// memory does not grow with the keys' length.
	// A full cache forgets the entry of a key decided by the default
	// policy (an expired one first), else an expired entry of a key with
	// an override; never the live entry of a key with an override, so
	// that a flood of keys cannot make a tenant's key unknown again (and,
	// when the provider then fails, decided by the default). Keep MaxKeys
	// above the keys with overrides: a key that finds the cache full of
	// them is not cached.
	MaxKeys int
	// MaxPolicies bounds the distinct override policies (by name) in use,
	// each deciding on a table of its own (default
	// DefaultOverrideMaxPolicies). A name is in use while a cached answer
	// may hand out its limiter (within TTL and ErrorTTL of its last use)
	// or while any of its keys holds state (a key whose window or bucket
	// has not recovered, in an enforced or a shadow limit, on the
	// in-memory or the local-first store, or in the Redis store's
	// FailLocal limiter; Redis keeps the rest under the name, for the
	// name's next limiter); a new name, when
	// MaxPolicies are in use, takes the place of the least recently used
	// name no longer in use. A key whose override would be one more than
	// that is refused (an error wrapping ErrInvalidConfig) for ErrorTTL,
	// OnError told, never decided by the default, which may allow it
	// more: keep MaxPolicies above the names the provider gives at once
	// (one per active tenant?).
	MaxPolicies int
	// OnError, if set, is told of every override not applied, with an
	// error wrapping ErrOverride (never the key: it may be a secret).
	OnError func(ctx context.Context, err error)
}

// Overrides decides each key by its own limit where a provider gives one,
// and by a default policy elsewhere: per-tenant contracts on top of a
// default rate. It has the methods of a middleware's limiter (AllowN,
// Refund) and is safe for concurrent use.
//
// The provider is asked with the key decided: behind the middleware, the
// key its key function gives (scoped when a selector gives a scope). Key
// such requests by an identifier the provider can look up (an
// authenticated tenant's id; a hashed header cannot be looked up), or read
// the tenant from ctx, where authentication put it.
//
// The provider is consulted on a key's first decision and when its cached
// answer expires; its answers are cached per key (bounded, with a TTL,
// "no override" included), and concurrent decisions of one key wait for
// one call. A provider that fails or panics never lets a request through
// unlimited: for ErrorTTL, the key is decided by the policy that decided
// it before (its override, so that a key held to less than the default
// cannot escape it by a fault), or by the default policy when it has none
// cached (a key asked for the first time, or forgotten by a full cache).
// A failure while the asking caller's context has ended (a client gone,
// a deadline passed) is that caller's alone: its decision fails with the
// context's error and the key's next caller asks again. An override the
// provider gives that cannot be decided (a name beyond MaxPolicies, one
// the store refuses) keeps the key on its override known before when that
// is the policy given (a change of its limits that cannot be applied),
// else refuses it for ErrorTTL (an error wrapping ErrInvalidConfig): the
// default, or the override the key leaves, may allow it more. A policy
// named as the default is the default, with the default's limits as they
// are (after a SetPolicy of the default, the provider's copy may be an
// older one): OnError is told when its limits differ.
//
// Override policies are told apart by name: every key whose override is
// the policy named "enterprise" is decided by one limiter on a table of
// its own (on the Redis store, keys of its own), never on the default
// policy's state, except for a policy identical to the default (same name
// and limits), which is the default. The latest limits the provider gives
// for a name apply to every key under it: a change of them is made with
// [Limiter.SetPolicy], keeping the keys' state; one SetPolicy refuses
// starts that name's limiter afresh, unless the name had that shape before
// (among the last MaxPolicies replaced): its limiter then decides again, on
// the state it kept, so that shapes taking turns under one name reset no
// key. A key that moves from the default to
// an override, or between overrides, starts the new limit afresh, as a
// tenant changing tiers does (and a refund of a decision taken before
// the move gives nothing back).
type Overrides struct {
	def      *Limiter
	provider OverrideFunc
	opts     OverrideOptions
	limOpts  []Option
	cache    overrideCache

	// refused is what the cache holds for a key refused by
	// errOverrideRefused: a Limiter that decides nothing, never returned.
	refused *Limiter

	mu      sync.Mutex
	byName  map[string]*Limiter
	used    map[string]int64 // when each name of byName was last handed out (o.def's clock)
	held    map[string]int64 // when forgetIdle last found a name of byName holding state
	retired []*Limiter       // limiters replaced (a shape SetPolicy refused): the last MaxPolicies
	// forgot holds the limiters of names forgotten (see forgetIdle), the
	// last MaxPolicies, apart from retired: names coming and going must
	// not push a replaced limiter, and its keys' state, past return.
	forgot []*Limiter
	// noForget is when forgetIdle may first find a name to forget, after
	// a scan that found none (0: unknown); a name added resets it.
	noForget int64
}

// NewOverrides returns an Overrides deciding by p where provider gives no
// override. limOpts make the default's limiter and every override's (a
// store, a clock, an observer); they are checked as [NewLimiter] checks
// them.
func NewOverrides(p *Policy, provider OverrideFunc, opts OverrideOptions, limOpts ...Option) (*Overrides, error) {
	if provider == nil {
		return nil, fmt.Errorf("core: NewOverrides: nil provider: %w", ErrInvalidConfig)
	}
	if opts.TTL < 0 || opts.NegativeTTL < 0 || opts.ErrorTTL < 0 || opts.MaxKeys < 0 || opts.MaxPolicies < 0 {
		return nil, fmt.Errorf("core: NewOverrides: negative option in %+v: %w", opts, ErrInvalidConfig)
	}
	if opts.TTL == 0 {
		opts.TTL = DefaultOverrideTTL
	}
	if opts.NegativeTTL == 0 {
		opts.NegativeTTL = opts.TTL
	}
	if opts.ErrorTTL == 0 {
		opts.ErrorTTL = DefaultOverrideErrorTTL
	}
	if opts.MaxKeys == 0 {
		opts.MaxKeys = DefaultOverrideMaxKeys
	}
	if opts.MaxPolicies == 0 {
		opts.MaxPolicies = DefaultOverrideMaxPolicies
	}
	def, err := NewLimiter(p, limOpts...)
	if err != nil {
		return nil, err
	}
	o := &Overrides{def: def, provider: provider, opts: opts, limOpts: limOpts, refused: &Limiter{}, byName: map[string]*Limiter{}, used: map[string]int64{}, held: map[string]int64{}}
	o.cache.init(opts.MaxKeys, def)
	return o, nil
}

// Default returns the limiter of the default policy (to change its limits
// with [Limiter.SetPolicy], say); nil for a nil or zero Overrides.
func (o *Overrides) Default() *Limiter {
	if o == nil {
		return nil
	}
	return o.def
}

// errZeroOverrides is returned by the methods of a nil or zero Overrides.
var errZeroOverrides = fmt.Errorf("core: nil or zero Overrides (make it with NewOverrides): %w", ErrInvalidConfig)

// zero reports whether o is nil or zero, not made by NewOverrides.
func (o *Overrides) zero() bool { return o == nil || o.def == nil }

// Allow takes one unit for key. It is AllowN(ctx, key, 1).
func (o *Overrides) Allow(ctx context.Context, key string) (Result, error) {
	return o.AllowN(ctx, key, 1)
}

// AllowN takes cost units for key under key's own limit, or the default's;
// see [Limiter.AllowN].
func (o *Overrides) AllowN(ctx context.Context, key string, cost int64) (Result, error) {
	l, err := o.limiter(ctx, key)
	if err != nil {
		return Result{}, err
	}
	return l.AllowN(ctx, key, cost)
}

// Peek reports what AllowN would decide for cost, consuming nothing.
func (o *Overrides) Peek(ctx context.Context, key string, cost int64) (Result, error) {
	l, err := o.limiter(ctx, key)
	if err != nil {
		return Result{}, err
	}
	return l.Peek(ctx, key, cost)
}

// Refund gives back what taken consumed, on the limiter that decided it;
// see [Limiter.Refund]. It fails with [ErrRefundForeign] for a decision
// that none of o's limiters took (or one of a limiter replaced more than
// MaxPolicies replacements ago, or of a name forgotten more than
// MaxPolicies names forgotten ago).
func (o *Overrides) Refund(ctx context.Context, key string, taken Result) (Result, error) {
	if o.zero() {
		return Result{}, errZeroOverrides
	}
	if !taken.taken || taken.owner == nil {
		return Result{}, ErrNotTaken
	}
	if !o.owns(taken.owner) {
		return Result{}, ErrRefundForeign
	}
	return taken.owner.Refund(ctx, key, taken)
}

// Reset forgets key under the default policy and under its override (the
// default alone for a key refused for want of its override's limiter).
func (o *Overrides) Reset(ctx context.Context, key string) error {
	l, err := o.limiter(ctx, key)
	if errors.Is(err, errOverrideRefused) {
		l, err = o.def, nil
	}
	if err != nil {
		return err
	}
	err = o.def.Reset(ctx, key)
	if l != o.def {
		err = errors.Join(err, l.Reset(ctx, key))
	}
	return err
}

func (o *Overrides) owns(l *Limiter) bool {
	if l == o.def {
		return true
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.byName[l.Policy().name] == l || o.kept(l)
}

// kept reports whether l is among the limiters retired or forgotten.
// o.mu is held.
func (o *Overrides) kept(l *Limiter) bool {
	return slices.Contains(o.retired, l) || slices.Contains(o.forgot, l)
}

// limiter returns the limiter deciding key: cached, or asked of the
// provider; errOverrideRefused for a key refused.
func (o *Overrides) limiter(ctx context.Context, key string) (*Limiter, error) {
	if o.zero() {
		return nil, errZeroOverrides
	}
	l, err := o.cache.get(ctx, key, o.def.now(), o.resolve)
	if err == nil && l == o.refused {
		return nil, errOverrideRefused
	}
	return l, err
}

// resolve asks the provider for key's limiter and how long to cache it;
// prev is the limiter that decided key before (nil when unknown), from
// the instant the answer's cache duration counts from. A name handed out
// is marked used at from or later, never earlier than it was, so that forgetIdle
// cannot find it unused while the answer is cached, however the clock
// moved (stepped back) during the provider's call. A
// provider failing while ctx has ended is the caller's failure, not the
// provider's: ctx's error, cached for no one. Any other failure keeps
// prev's policy (a key is never moved off its override, to a default
// that may allow more, by a fault it can cause or wait for), or the
// default when the key has no known policy, for ErrorTTL. An override
// the provider gave but o cannot decide (see errOverrideRefused; not one
// named as the default, which the default decides: see errDefaultNamed) keeps
// prev's override when it is that policy (by name: a change of its limits
// that cannot be applied), and otherwise refuses the key rather than let
// the default, or the override it leaves, decide it.
func (o *Overrides) resolve(ctx context.Context, key string, prev *Limiter, from int64) (*Limiter, time.Duration, error) {
	p, ok, err := o.call(ctx, key)
	if err == nil && !ok {
		return o.def, o.opts.NegativeTTL, nil
	}
	var l *Limiter
	given := err == nil // an override the provider gave
	if given {
		l, err = o.limiterOf(p, from)
	}
	if err == nil {
		return l, o.opts.TTL, nil
	}
	if cerr := ctx.Err(); cerr != nil {
		return nil, 0, cerr
	}
	if o.opts.OnError != nil {
		o.opts.OnError(ctx, fmt.Errorf("%w: %w", ErrOverride, err))
	}
	if errors.Is(err, errDefaultNamed) {
		// A policy is known by its name: the default's is the default,
		// whose limits SetPolicy (or a reload) may have changed since
		// the provider took its copy. Refusing it would answer every key
		// of the default's tier 500 after such a change.
		return o.def, o.opts.ErrorTTL, nil
	}
	if l = o.current(prev, from); given && (l == o.def || l == o.refused || l.Policy().name != p.name) {
		// Only a change of the key's own policy's limits that cannot be
		// applied keeps the override it had: another policy, the
		// default or the one the key leaves, may allow it more than the
		// override given.
		l = o.refused
	}
	return l, o.opts.ErrorTTL, nil
}

// current returns the limiter to decide a key by while the provider
// fails, prev having decided it before: prev itself while o keeps it (the
// key's count is there; the name's latest limiter may be of another shape,
// where the key has none), else prev's name's; o.refused for a key
// refused, whose override may allow less than the default. A name o has
// forgotten (see forgetIdle) takes prev back, retired or not, in the place
// of an unused name if MaxPolicies are in use, or the key is refused: the
// default may allow it more than its override. Handing out a forgotten
// name's limiter without its name would let the key take on a limiter that
// forgetIdle never looks at, pushed past return by the next names
// forgotten, and the name's return start the key afresh.
func (o *Overrides) current(prev *Limiter, from int64) *Limiter {
	if prev == nil || prev == o.def {
		return o.def
	}
	if prev == o.refused {
		return o.refused
	}
	now := max(o.def.now(), from) // see resolve
	o.mu.Lock()
	defer o.mu.Unlock()
	name := prev.Policy().name
	if l := o.byName[name]; l != nil {
		o.used[name] = max(o.used[name], now)
		if l == prev || o.kept(prev) {
			return prev
		}
		return l
	}
	if len(o.byName) >= o.opts.MaxPolicies && !o.forgetIdle(now) {
		return o.refused
	}
	o.retired = slices.DeleteFunc(o.retired, func(r *Limiter) bool { return r == prev })
	o.forgot = slices.DeleteFunc(o.forgot, func(r *Limiter) bool { return r == prev })
	o.byName[name], o.used[name], o.noForget = prev, now, 0
	return prev
}

// call calls the provider, turning a panic into an error.
func (o *Overrides) call(ctx context.Context, key string) (p *Policy, ok bool, err error) {
	defer func() {
		if v := recover(); v != nil {
			p, ok, err = nil, false, fmt.Errorf("provider panicked: %v", v)
		}
	}()
	p, ok, err = o.provider(ctx, key)
	if err != nil {
		return nil, false, fmt.Errorf("provider: %w", err)
	}
	if ok && (p == nil || len(p.limits) == 0) {
		return nil, false, errors.New("provider gave a nil or zero policy")
	}
	return p, ok, nil
}

// limiterOf returns the limiter of override policy p: its name's, with
// p's limits.
func (o *Overrides) limiterOf(p *Policy, from int64) (*Limiter, error) {
	if dp := o.def.Policy(); p.name == dp.name {
		if sameLimits(p, dp) {
			return o.def, nil
		}
		return nil, fmt.Errorf("override policy %q %w", p.name, errDefaultNamed)
	}
	now := max(o.def.now(), from) // see resolve
	o.mu.Lock()
	defer o.mu.Unlock()
	l := o.byName[p.name]
	if l != nil {
		o.used[p.name] = max(o.used[p.name], now)
		if sameLimits(p, l.Policy()) || l.SetPolicy(p) == nil {
			return l, nil
		}
		if r := o.unretire(p); r != nil { // from o.retired or o.forgot
			o.retire(l, now)
			o.byName[p.name] = r
			return r, nil
		}
	} else {
		if len(o.byName) >= o.opts.MaxPolicies && !o.forgetIdle(now) {
			return nil, fmt.Errorf("override policy %q: already %d override policies in use (MaxPolicies)", p.name, len(o.byName))
		}
		if r := o.unretire(p); r != nil { // a name forgotten, back
			o.byName[p.name], o.used[p.name], o.noForget = r, now, 0
			return r, nil
		}
	}
	n, err := NewLimiter(p, append(slices.Clip(o.limOpts), asOverride)...)
	if err != nil {
		return nil, fmt.Errorf("override policy %q: %w", p.name, err)
	}
	if l != nil { // a change SetPolicy refused: the name starts afresh
		o.retire(l, now)
	}
	o.byName[p.name], o.used[p.name], o.noForget = n, now, 0
	return n, nil
}

// retire keeps l, replaced, among the last MaxPolicies retired: for
// refunds, and for its name to find again. o.mu is held.
func (o *Overrides) retire(l *Limiter, now int64) { o.retired = o.keepLast(o.retired, l, now) }

// keepLast appends l to list, keeping MaxPolicies of them: beyond, it
// drops the oldest that is idle at now (its keys all behave as never
// seen, so that its name loses nothing with it), and the oldest only when
// none is. A limiter may hold state after it entered the list: a request
// that took it from the cache before its name was forgotten takes its
// unit on it, and dropping it would start that key afresh when the name
// returns (TestAttackOverrideForgottenLimiterTakenInFlightKept).
func (o *Overrides) keepLast(list []*Limiter, l *Limiter, now int64) []*Limiter {
	list = append(list, l)
	if len(list) <= o.opts.MaxPolicies {
		return list
	}
	drop := 0
	for i, r := range list {
		if r.idle(now) {
			drop = i
			break
		}
	}
	return slices.Delete(list, drop, drop+1)
}

// forgetIdle forgets, for a new name, the least recently used override
// name that is no longer in use: no cached answer hands out its limiter
// (its last use is older than TTL and ErrorTTL, the longest an answer is
// cached), and its keys have all recovered (see Limiter.idle), so that
// forgetting it starts no tenant afresh. Its limiter is kept in o.forgot
// (not o.retired, whose replaced limiters may hold state), where a
// return of the name finds it. It reports whether a name was forgotten.
// Every unused name is looked at, oldest first, not a few: names holding
// state (tenants of a daily quota who spend it and stay away) would
// otherwise keep a name that could give way from being found. A name
// found holding state is not looked at again for ErrorTTL (a new name is
// refused that much longer at most), so that the scans cost at most one
// look at each name per ErrorTTL, however many keys are refused. A scan
// that forgets none records when a name may first be (noForget: the
// earliest end of a name's use or of its ErrorTTL skip), and the calls
// before that return at once: a client's refused keys cost no gathering
// and sorting of every name under o.mu (clock going backwards: a new name
// is refused until the clock is back there). o.mu is held.
func (o *Overrides) forgetIdle(now int64) bool {
	if o.noForget != 0 && now < o.noForget {
		return false
	}
	hold, errTTL := int64(max(o.opts.TTL, o.opts.ErrorTTL)), int64(o.opts.ErrorTTL)
	next := int64(math.MaxInt64) // the first instant a name may be forgotten
	var old []string             // unused names, oldest first
	for name, at := range o.used {
		from := satAdd(at, hold)
		if h, ok := o.held[name]; ok {
			from = max(from, satAdd(h, errTTL))
		}
		if now >= from {
			old = append(old, name)
		} else {
			next = min(next, from)
		}
	}
	slices.SortFunc(old, func(a, b string) int { return cmp.Compare(o.used[a], o.used[b]) })
	for _, name := range old {
		l := o.byName[name]
		if !l.idle(now) {
			o.held[name] = now
			next = min(next, satAdd(now, errTTL))
			continue
		}
		delete(o.byName, name)
		delete(o.used, name)
		delete(o.held, name)
		o.forgot = o.keepLast(o.forgot, l, now)
		o.noForget = 0
		return true
	}
	o.noForget = next
	return false
}

// unretire returns the latest limiter retired or forgotten from p's name
// that can decide p on the state it kept (with p's limits set), removing
// it from o.retired or o.forgot, or nil. A name whose shapes take turns (a
// provider giving it per-key windows, or flipping between two contracts)
// thus finds each shape's keys' state again, rather than starting them
// afresh at every turn. o.mu is held.
func (o *Overrides) unretire(p *Policy) *Limiter {
	if r := unretireFrom(&o.retired, p); r != nil {
		return r
	}
	return unretireFrom(&o.forgot, p)
}

// unretireFrom is unretire for one list.
func unretireFrom(list *[]*Limiter, p *Policy) *Limiter {
	for i := len(*list) - 1; i >= 0; i-- {
		r := (*list)[i]
		if r.Policy().name != p.name || (!sameLimits(p, r.Policy()) && r.SetPolicy(p) != nil) {
			continue
		}
		*list = slices.Delete(*list, i, i+1)
		return r
	}
	return nil
}

// sameLimits reports whether a and b have the same limits, in order,
// shadow limits included.
func sameLimits(a, b *Policy) bool {
	if a == b {
		return true
	}
	if len(a.limits) != len(b.limits) || len(a.shadows) != len(b.shadows) {
		return false
	}
	for i := range a.limits {
		if a.limits[i].Limit != b.limits[i].Limit {
			return false
		}
	}
	for i := range a.shadows {
		if a.shadows[i].Limit != b.shadows[i].Limit {
			return false
		}
	}
	return true
}
