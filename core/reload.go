package core

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/floodgate-go/floodgate/core/store"
)

// ErrPolicyChange is returned (wrapped) by [Limiter.SetPolicy] for a change
// the limiter cannot make without resetting or misreading its keys' state:
// the limiter goes on deciding its current policy.
var ErrPolicyChange = errors.New("policy change not applicable to the kept state")

// Rebinder is implemented by a [store.Table] whose state can be decided
// under a changed policy: Rebind returns a table that decides p on the
// state the receiver keeps (the same keys, the same counts), leaving the
// receiver as it is. [Limiter.SetPolicy] calls it only for a p of the same
// shape as the receiver's policy (see SetPolicy). The in-memory and Redis
// stores' tables implement it.
//
// A Rebinder whose Rebind may refuse such a p (a bound of its own store)
// should also have a method CheckRebind(p *Policy) error that returns the
// error Rebind(p) would return and changes nothing: [Limiter.CheckPolicy]
// calls it, so that a caller changing several limiters together (a
// configuration file's reload) learns of the refusal before it changes
// any.
type Rebinder interface {
	Rebind(p *Policy) (store.Table, error)
}

// rebindChecker is a Rebinder with CheckRebind (see Rebinder).
type rebindChecker interface {
	CheckRebind(p *Policy) error
}

// bindChecker is a Store whose Bind may refuse a policy (one of a limit
// it cannot decide): CheckBind returns the error Bind(p) would return and
// binds nothing, so that [Limiter.CheckPolicy] sees a shadow limit the
// store refuses without binding it. The Redis and local-first stores
// implement it.
type bindChecker interface {
	CheckBind(p *Policy) error
}

// keptPolicies is how many earlier policies a limiter remembers, for
// refunds of the decisions taken under them (see binding.older).
const keptPolicies = 8

// binding is what a Limiter decides with: a policy and the table deciding
// it. SetPolicy replaces it whole; a decision loads it once.
type binding struct {
	policy *Policy
	table  store.Table
	mem    *memTable     // table, when it is the in-memory store's: called directly
	shadow []shadowTable // the policy's shadow limits (see shadow.go)
	// base is the policy the table was first bound for: the in-memory
	// table's state keeps its encoding (see recode.go).
	base *Policy
	root *memTable // the in-memory table first bound: the store lists it (memusage.go)
	// older holds the policies decided before this one, most recent first
	// (at most keptPolicies), and same[i] how many of them, from the most
	// recent, had limit i exactly as policy has it: a refund gives back to
	// limit i only a decision taken under one of those.
	older []*Policy
	same  [MaxLimits]int
}

func newBinding(p *Policy, t store.Table, prev *binding) *binding {
	b := &binding{policy: p, table: t, base: p}
	b.mem, _ = t.(*memTable)
	if prev == nil {
		b.root = b.mem
		return b
	}
	b.base, b.root = prev.base, prev.root
	b.older = append([]*Policy{prev.policy}, prev.older[:min(len(prev.older), keptPolicies-1)]...)
	for i := range p.limits {
		if p.limits[i].Algorithm != prev.policy.limits[i].Algorithm {
			continue // b.same[i] = 0
		}
		b.same[i] = min(1+prev.same[i], len(b.older))
	}
	return b
}

// changedHolds zeroes in holds, for a refund of a decision taken under
// policy taken, the hold of each limit changed since: a refund gives such a
// limit nothing back (its state is read under other parameters now, and
// the take's share of it is not known any more). A policy names the
// binding that decided under it: SetPolicy gives each binding a policy of
// its own, so that a policy decided again (A → B → A) is not taken for
// the binding that took under it before.
func (b *binding) changedHolds(taken *Policy, holds *[MaxLimits]int64) {
	if taken == b.policy {
		return
	}
	j := len(b.older) // how many policies back taken was decided: none known
	for k, p := range b.older {
		if p == taken {
			j = k
			break
		}
	}
	for i := range holds {
		if j >= b.same[i] {
			holds[i] = 0
		}
	}
}

// SetPolicy makes the limiter decide p from now on, on the state its store
// keeps for every key: nobody's count is reset. p must have the shape of
// the current policy: the same name, the same limits (by name, in order),
// each of the same algorithm type keeping the same state (not another
// SlidingLog Quota, RollingWindow Window or Period, FixedWindow Window or
// anchoring, SlidingWindow Window, or Hybrid Window); any other change is
// refused with an error wrapping [ErrPolicyChange], and the limiter keeps
// its current policy. The store's table must implement [Rebinder] (the
// in-memory and Redis stores' do).
//
// SetPolicy is safe to call while the limiter decides: a decision reads
// the policy once, and decides entirely under the old policy or entirely
// under p (a decision that began before SetPolicy returned may still be
// under the old one). A decision costs nothing more for it: one atomic
// load.
//
// How each algorithm reads the state kept under the new parameters (in
// every case, a key never seen gets the new limit's full quota, and a key
// already limited is admitted no more than the new limit admits it):
//
//   - GCRA and LeakyBucket keep the TAT, an instant: the debt of a key is a
//     time, re-read in the new emission interval. A key is admitted while
//     TAT' − now ≤ Burst·I under the new Burst and I, so never more than the
//     new burst at once; after a lowered rate a key's debt weighs fewer
//     units but waits the same time.
//   - TokenBucket keeps its tokens and last instant: tokens above a lowered
//     Burst are capped at it when read; the refill goes on at the new rate.
//   - FixedWindow and SlidingWindow keep their counts in their window: a
//     count at or above a lowered Quota denies until the window moves on.
//   - SlidingLog keeps its log (only its Window and CountRejected may
//     change): entries count while they lie in the new Window.
//   - RollingWindow keeps its per-period counts against the new Quota and
//     PeriodCap.
//   - Hybrid keeps its mode, window and count (or TAT in the smooth mode)
//     against the new Quota: a count at or above a lowered Quota denies
//     until the window ends, with nothing Remaining.
//   - WarmUp keeps its next free instant and stored permits; permits above
//     a lowered maximum are kept until spent, and decide slower (colder)
//     than the new cold rate, never faster.
//   - Backoff keeps its failures, window and lock end: a lockout already
//     set ends when it was set to end; the next failures are judged by the
//     new Free, Window, Base, Max and Forgive.
//
// A refund of a decision taken before the change gives nothing back to a
// limit that has changed since (the others give back as usual), even once
// p is a policy the limiter decided before (A → B → A: the limit changed
// twice since): it never gives back more than the decision took, under
// either policy. The limiter decides a copy of p ([Limiter.Policy]
// returns it), a pointer of its own.
//
// On the Redis store, a key's expiry was set when it was last written,
// from its recovery under the limits of then: a change that makes
// recovery slower lets an idle key expire at the old recovery instant (it
// then decides as a key never seen, which the new limit's burst bounds).
// Its deny cache starts afresh; its FailLocal limiter is kept, read under
// the new limits' share with its counts kept (a fresh one would grant a
// new share at every change during an outage). A process that binds the
// new policy afresh (started after the change) decides on the same keys:
// the Redis store names them by the policy's shape, not its quotas.
func (l *Limiter) SetPolicy(p *Policy) error {
	if err := l.check(); err != nil {
		return err
	}
	l.setMu.Lock()
	defer l.setMu.Unlock()
	r, err := l.checkPolicy(p)
	if err != nil {
		return err
	}
	// Rebind is the last step that may fail: a store's Rebind may put p's
	// limits into effect for the table's shared state as it returns (the
	// local-first store's sync rounds), so nothing may refuse p after it.
	b := l.cur.Load()
	shadows, err := l.bindShadows(p, b)
	if err != nil {
		return fmt.Errorf("core: SetPolicy: policy %q: %w", p.name, err)
	}
	var t store.Table
	eff := p
	if b.mem != nil {
		eff = recoded(b.base, p)
	}
	if eff == p {
		// Each binding decides a policy of its own: a Result names the
		// binding that took it by its policy (see changedHolds), and p
		// may be one the limiter decided before (a toggle, A → B → A),
		// whose takes a refund must not take for this binding's.
		c := *p
		eff = &c
	}
	if b.mem != nil {
		t = b.mem.rebind(eff)
	} else if t, err = r.Rebind(eff); err != nil {
		return fmt.Errorf("core: SetPolicy: policy %q: %w", p.name, err)
	}
	nb := newBinding(eff, t, b)
	nb.shadow = shadows
	l.cur.Store(nb)
	return nil
}

// CheckPolicy returns the error SetPolicy(p) would return for what p
// changes — a nil policy, another name, other limits or algorithms, a
// parameter the state is read in, or a store whose tables cannot change
// policy (errors wrapping ErrInvalidConfig or ErrPolicyChange), a change
// the store refuses (its bounds: see [Rebinder]) or a shadow limit the
// store cannot decide — and changes nothing: a caller changing several
// limiters together (a configuration file's reload) checks every change
// before making any. A SetPolicy made since the check may change its
// answer, as may a store whose Rebind refuses without saying so in a
// CheckRebind.
func (l *Limiter) CheckPolicy(p *Policy) error {
	if err := l.check(); err != nil {
		return err
	}
	l.setMu.Lock()
	defer l.setMu.Unlock()
	_, err := l.checkPolicy(p)
	return err
}

// checkPolicy is CheckPolicy on a checked l, l.setMu held; it returns the
// store's table as the Rebinder that will change it (nil for the memory
// store's, which the limiter rebinds itself). It binds nothing: a store
// that may refuse to bind a shadow limit says so through CheckBind (see
// bindChecker).
func (l *Limiter) checkPolicy(p *Policy) (Rebinder, error) {
	if p == nil || len(p.limits) == 0 {
		return nil, fmt.Errorf("core: SetPolicy: nil or zero policy (make it with NewPolicy): %w", ErrInvalidConfig)
	}
	b := l.cur.Load()
	if err := compatible(b.policy, p); err != nil {
		return nil, err
	}
	var r Rebinder
	if b.mem == nil {
		var ok bool
		if r, ok = b.table.(Rebinder); !ok {
			return nil, fmt.Errorf("core: SetPolicy: the %s store's table cannot change policy: %w", l.kind, ErrPolicyChange)
		}
		if c, ok := r.(rebindChecker); ok {
			if err := c.CheckRebind(p); err != nil {
				return nil, fmt.Errorf("core: SetPolicy: policy %q: %w", p.name, err)
			}
		}
	}
	if c, ok := l.store.(bindChecker); ok {
		for _, sh := range p.shadows {
			if err := c.CheckBind(sh.p); err != nil {
				return nil, fmt.Errorf("core: SetPolicy: policy %q: %w", p.name, err)
			}
		}
	}
	return r, nil
}

// compatible returns nil when p may replace old on old's state, or an
// error wrapping ErrPolicyChange that says why not.
func compatible(old, p *Policy) error {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("core: SetPolicy: policy %q: "+format+": %w", append([]any{old.name}, append(args, ErrPolicyChange)...)...)
	}
	if p.name != old.name {
		return fail("new name %q", p.name)
	}
	if len(p.limits) != len(old.limits) {
		return fail("%d limits, was %d", len(p.limits), len(old.limits))
	}
	for i := range p.limits {
		a, n := &old.limits[i], &p.limits[i]
		if a.Name != n.Name {
			return fail("limit %d is %q, was %q", i, n.Name, a.Name)
		}
		if reflect.TypeOf(a.Algorithm) != reflect.TypeOf(n.Algorithm) {
			return fail("limit %q is a %T, was a %T", n.Name, n.Algorithm, a.Algorithm)
		}
		if why := fixedParams(a.Algorithm, n.Algorithm); why != "" {
			return fail("limit %q: %s (its state is read in it)", n.Name, why)
		}
		if a.step.words() != n.step.words() {
			return fail("limit %q keeps %d words of state per key, was %d", n.Name, n.step.words(), a.step.words())
		}
	}
	return nil
}

// fixedParams names the parameter of algorithm a that n (of a's type)
// changes and that a's state cannot be read under, or returns "".
func fixedParams(a, n Algorithm) string {
	switch a := a.(type) {
	case FixedWindow:
		n := n.(FixedWindow)
		if a.Window != n.Window || a.Anchored != n.Anchored {
			return "the window (length and anchoring) may not change"
		}
	case SlidingWindow:
		if a.Window != n.(SlidingWindow).Window {
			return "the window may not change"
		}
	case SlidingLog:
		if a.Quota != n.(SlidingLog).Quota {
			return "the quota (the log's length) may not change"
		}
	case RollingWindow:
		n := n.(RollingWindow)
		if a.Window != n.Window || a.Period != n.Period {
			return "the window and period may not change"
		}
	case Hybrid:
		if a.Window != n.(Hybrid).Window {
			return "the window may not change"
		}
	}
	return ""
}

// Rebind returns a table deciding p on t's state (see [Rebinder]), for a
// store that keeps a memory table of its own (the Redis store's FailLocal
// limiter): the same shards, read under p's limits. A p of another shape
// (see [Limiter.SetPolicy]) is refused with an error wrapping
// ErrPolicyChange.
func (t *memTable) Rebind(p *Policy) (store.Table, error) {
	if p == nil || len(p.limits) == 0 {
		return nil, fmt.Errorf("core: memory store: Rebind: nil or zero policy: %w", ErrInvalidConfig)
	}
	if err := compatible(t.policy, p); err != nil {
		return nil, err
	}
	return t.rebind(recoded(t.base, p)), nil
}

// rebind returns a table deciding p on t's state: the same shards, read
// by p's steppers (p is recoded for t's encoding: see recode.go).
func (t *memTable) rebind(p *Policy) *memTable {
	n := *t
	n.policy = p
	n.setWord(p)
	return &n
}
