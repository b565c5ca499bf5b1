package core

import (
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/floodgate-go/floodgate/internal/isnil"
)

// Limit is one named limit of a [Policy].
type Limit struct {
	// Name identifies the limit in results and headers, e.g. "burst" or
	// "daily". Names are unique within a policy; an empty name is allowed
	// for a policy's only limit.
	Name      string
	Algorithm Algorithm
	// Shadow makes the limit a shadow limit: decided, counted and reported
	// ([Result.ShadowLimits], [Decision.ShadowDenied]), never enforced. Its
	// state is kept in the limiter's store as that of a policy of its own,
	// named "<policy>/shadow:<limit>". See "Shadow limits" in the package
	// documentation.
	Shadow bool
}

// Policy is a name and one to [MaxLimits] limits. A request is admitted only
// if every limit admits it, and a denial changes no limit's state (the one
// exception is [SlidingLog] with CountRejected, which records every attempt
// the policy denies, whichever limit denied it, unless some limit can never
// grant its cost). A Policy is immutable and safe for concurrent use.
type Policy struct {
	name   string
	limits []limitSpec // the enforced limits
	words  int
	spans  bool // some limit is a span of time (see lowerlog.go)
	shapes bool // some limit delays admissions (see shaper)
	// holdMax bounds the hold of a take of those limits (see spanner).
	holdMax int64
	// shadows holds the shadow limits, each decided as a policy of its
	// own; shadowSets[m] lists the names of the shadows in the bit set m.
	shadows    []shadowSpec
	shadowSets [][]string
}

// shadowSpec is one shadow limit of a policy and the policy of that limit
// alone that decides it.
type shadowSpec struct {
	Limit
	p *Policy
}

// shadowName names the policy deciding shadow limit limit of policy name,
// as [MemoryStore.AppendUsage] reports it: stores keep its state apart
// from the enforced limits' (the Redis store keys state by policy name
// and limits).
func shadowName(name, limit string) string { return name + "/shadow:" + limit }

type limitSpec struct {
	Limit
	step   stepper
	off    int
	quota  int64
	window time.Duration
	span   spanner // nil, or the state is a span of time that drains (see lowerlog.go)
}

// NewPolicy validates limits and returns the policy that decides them
// together. Shadow limits count towards [MaxLimits], and at least one
// limit must be enforced (not Shadow). The policy's name and its limits'
// names must be valid UTF-8: they reach logs, metric labels and headers.
// An algorithm given by pointer is copied: the policy keeps (and
// [Policy.Limits] returns) the value it points to.
func NewPolicy(name string, limits ...Limit) (*Policy, error) {
	if len(limits) == 0 || len(limits) > MaxLimits {
		return nil, fmt.Errorf("core: policy %q has %d limits, want 1 to %d: %w", name, len(limits), MaxLimits, ErrInvalidConfig)
	}
	if !utf8.ValidString(name) {
		return nil, fmt.Errorf("core: policy name %q is not valid UTF-8: %w", name, ErrInvalidConfig)
	}
	p := &Policy{name: name}
	seen := map[string]int{} // a limit's name to its position, from 1
	var shadows []Limit
	for i, l := range limits {
		switch at := seen[l.Name]; {
		case at > 0 && l.Name == "":
			return nil, fmt.Errorf("core: policy %q: limits %d and %d have no name: name each limit of a policy of several (Limit.Name, such as \"minute\" and \"day\"): %w",
				name, at, i+1, ErrInvalidConfig)
		case at > 0:
			return nil, fmt.Errorf("core: policy %q: duplicate limit name %q: %w", name, l.Name, ErrInvalidConfig)
		}
		seen[l.Name] = i + 1
		if !utf8.ValidString(l.Name) {
			return nil, fmt.Errorf("core: policy %q: limit name %q is not valid UTF-8: %w", name, l.Name, ErrInvalidConfig)
		}
		if isnil.Value(l.Algorithm) {
			return nil, fmt.Errorf("core: policy %q: limit %q has no algorithm: %w", name, l.Name, ErrInvalidConfig)
		}
		// A pointer to an algorithm is kept as the value it points to:
		// SetPolicy's checks and the stores read the algorithms by type,
		// and the policy must not change with the caller's value.
		l.Algorithm = l.Algorithm.value()
		st, err := l.Algorithm.compile()
		if err != nil {
			return nil, fmt.Errorf("core: policy %q: limit %q: %w", name, l.Name, err)
		}
		if l.Shadow {
			shadows = append(shadows, l)
			continue
		}
		q, w := st.quota()
		p.limits = append(p.limits, limitSpec{Limit: l, step: st, off: p.words, quota: q, window: w, span: spanned(st)})
		if sp := spanned(st); sp != nil {
			p.spans, p.holdMax = true, max(p.holdMax, sp.holdMax())
		}
		p.words += st.words()
		if _, ok := st.(shaper); ok {
			p.shapes = true
		}
	}
	if len(p.limits) == 0 {
		return nil, fmt.Errorf("core: policy %q has only shadow limits, want at least one enforced: %w", name, ErrInvalidConfig)
	}
	for _, l := range shadows {
		sp, err := NewPolicy(shadowName(name, l.Name), Limit{Name: l.Name, Algorithm: l.Algorithm})
		if err != nil { // validated above: not expected
			return nil, err
		}
		p.shadows = append(p.shadows, shadowSpec{Limit: l, p: sp})
	}
	if len(p.shadows) > 0 {
		p.shadowSets = make([][]string, 1<<len(p.shadows))
		for m := range p.shadowSets {
			for j := range p.shadows {
				if m&(1<<j) != 0 {
					p.shadowSets[m] = append(p.shadowSets[m], p.shadows[j].Name)
				}
			}
		}
	}
	return p, nil
}

// MustPolicy is like [NewPolicy] but panics on an invalid configuration. It
// is meant for package-level variables and tests, never for serving paths.
func MustPolicy(name string, limits ...Limit) *Policy {
	p, err := NewPolicy(name, limits...)
	if err != nil {
		panic(err)
	}
	return p
}

// Single returns a policy of one limit, named like the policy.
func Single(name string, a Algorithm) (*Policy, error) {
	return NewPolicy(name, Limit{Name: name, Algorithm: a})
}

// Name returns the policy's name.
func (p *Policy) Name() string { return p.name }

// Limits returns a copy of the policy's enforced limits, in order: the
// limits its stores keep and its Results report (shadow limits are
// [Policy.ShadowLimits]).
func (p *Policy) Limits() []Limit {
	out := make([]Limit, len(p.limits))
	for i := range p.limits {
		out[i] = p.limits[i].Limit
	}
	return out
}

// ShadowLimits returns a copy of the policy's shadow limits (those with
// Shadow set), in order, or nil.
func (p *Policy) ShadowLimits() []Limit {
	if len(p.shadows) == 0 {
		return nil
	}
	out := make([]Limit, len(p.shadows))
	for i := range p.shadows {
		out[i] = p.shadows[i].Limit
	}
	return out
}

// AllLimits returns a copy of all the policy's limits: the enforced ones
// in order, then the shadow ones in order.
func (p *Policy) AllLimits() []Limit { return append(p.Limits(), p.ShadowLimits()...) }

// StateWords returns how many int64 words of state the policy keeps per key.
func (p *Policy) StateWords() int { return p.words }

// take decides taking cost at now on st (p.words words) into res. With
// commit set, an admitted take is written to st; a denial writes nothing
// except the penalties of algorithms that record denied attempts: every
// limit is told of the denial (whichever limit denied it) unless some
// limit can never grant the cost, and a limit that records it reports what
// it decides once it has. Without commit the same is reported, and nothing
// written.
func (p *Policy) take(st []int64, now, cost int64, commit bool, res *Result) {
	res.at, res.Cost, res.policy = now, cost, p
	if len(p.limits) == 1 {
		l := &p.limits[0]
		o := l.step.take(st, now, cost, commit)
		if !o.allowed && o.retryAfter != int64(Never) {
			if d, ok := l.step.denied(st, now, cost, commit); ok {
				o = d
			}
		}
		res.taken = commit && o.allowed
		res.per[0] = o
		res.set(0, &o)
		return
	}
	all, never := true, false
	for i := range p.limits {
		l := &p.limits[i]
		o := l.step.take(l.state(st), now, cost, false)
		res.per[i] = o
		all = all && o.allowed
		never = never || (!o.allowed && o.retryAfter == int64(Never))
	}
	for i := range p.limits {
		l := &p.limits[i]
		if all {
			if commit {
				res.per[i] = l.step.take(l.state(st), now, cost, true)
			}
			continue
		}
		if !never {
			// (Values in and out, never a pointer through the interface: a
			// pointer into res would make every caller's Result escape.)
			if d, ok := l.step.denied(l.state(st), now, cost, commit); ok {
				res.per[i] = d // the denial is recorded: reported as it leaves the limit
				continue
			}
		}
		if res.per[i].allowed {
			// Nothing is taken: report this limit's state as it stands.
			res.per[i] = l.step.take(l.state(st), now, 0, false)
		}
	}
	res.taken = commit && all
	res.summarize()
}

// refund gives back cost taken at the instant taken, limit i as far as
// the take still holds it: nothing from taken+holds[i] on (a late refund),
// and never more than the take itself still holds before that.
func (p *Policy) refund(st []int64, now, taken, cost int64, holds *[MaxLimits]int64) {
	for i := range p.limits {
		l := &p.limits[i]
		h := holds[i]
		if h <= 0 || h > 2*maxSpan {
			continue // no hold, or not one a take reports: give nothing
		}
		until := taken + h
		if now >= until {
			continue
		}
		// A limit in the zero state (a key never seen, or forgotten) holds
		// nothing to give back and is left as it is, as the Redis store
		// leaves a missing key.
		if s := l.state(st); !allZero(s) {
			l.step.refund(s, now, taken, until, cost)
		}
	}
}

func allZero(s []int64) bool {
	for _, w := range s {
		if w != 0 {
			return false
		}
	}
	return true
}

// idleAt returns the instant from which st behaves as a key never seen.
func (p *Policy) idleAt(st []int64) int64 {
	at := int64(-1 << 63)
	for i := range p.limits {
		l := &p.limits[i]
		if t := l.step.idleAt(l.state(st)); t > at {
			at = t
		}
	}
	return at
}

func (l *limitSpec) state(st []int64) []int64 { return st[l.off : l.off+l.step.words()] }
