package core

import (
	"context"
	"sync"
	"time"

	"github.com/floodgate-go/floodgate/core/store"
)

// shadowTable is the table a limiter decides one shadow limit on: a
// policy of that limit alone, bound to the limiter's store.
type shadowTable struct {
	table store.Table
	mem   *memTable // the table when it is the in-memory store's
}

// bindShadows binds each shadow limit of p to the limiter's store. With
// prev, the binding p replaces ([Limiter.SetPolicy]), a shadow limit prev
// has too, same name and same algorithm, keeps its table and so its
// state; any other starts afresh (a shadow limit enforces nothing, so its
// fresh state admits no one).
func (l *Limiter) bindShadows(p *Policy, prev *binding) ([]shadowTable, error) {
	if len(p.shadows) == 0 {
		return nil, nil
	}
	out := make([]shadowTable, len(p.shadows))
next:
	for j := range p.shadows {
		if prev != nil {
			for k := range prev.policy.shadows {
				if o := prev.policy.shadows[k].Limit; o.Name == p.shadows[j].Name && o.Algorithm == p.shadows[j].Algorithm {
					out[j] = prev.shadow[k]
					continue next
				}
			}
		}
		t, err := l.store.Bind(p.shadows[j].p)
		if err != nil {
			return nil, err
		}
		out[j].table = t
		out[j].mem, _ = t.(*memTable)
	}
	return out, nil
}

// shadowRun is the shadow limits' decision of one take or peek, made in
// another goroutine while the enforced limits decide, for stores other
// than the in-memory one (a second round trip in flight with the first,
// rather than after it).
type shadowRun struct {
	wg  sync.WaitGroup
	res Result // its shadow part
}

// startShadows starts deciding op of cost for key on the shadow limits.
func (l *Limiter) startShadows(ctx context.Context, b *binding, op store.Op, key string, cost int64) *shadowRun {
	sh := &shadowRun{}
	sh.res.policy = b.policy
	sh.res.at = l.now()
	sh.wg.Go(func() { l.decideShadows(ctx, b, op, key, 0, cost, &sh.res) })
	return sh
}

// finish waits for the shadow limits and, unless the enforced decision
// failed (err), copies what they decided into res.
func (sh *shadowRun) finish(err error, res *Result) {
	sh.wg.Wait()
	if err != nil {
		return
	}
	n := len(res.policy.limits)
	copy(res.per[n:], sh.res.per[n:])
	res.shadowSet, res.shadowDenied = sh.res.shadowSet, sh.res.shadowDenied
}

// decideShadows applies op (a take or a peek) of cost for key to each
// shadow limit, at res's instant, and records what each decided in res
// (res.per from NumLimits on, and the bit sets). h is key's hash in the
// in-memory store, whose tables all hash alike (0: not computed yet). A
// shadow limit whose store fails is left undecided: a shadow never fails
// nor changes a decision.
//
// Under [WithMaxDelay], a shaping shadow limit reports what the limit
// alone decides under it: a take it would delay longer than the bound is
// a denial, which takes nothing (peeked first, where the limit alone takes
// and gives back), and its other figures are bounded as capWait bounds an
// enforced limit's.
func (l *Limiter) decideShadows(ctx context.Context, b *binding, op store.Op, key string, h uint64, cost int64, res *Result) {
	res.shadowSet, res.shadowDenied = 0, 0
	n := len(b.policy.limits)
	// WithMaxDelay's bound, looked up at the first shaping shadow limit
	// of a take: only those use it (a lookup walks ctx's chain).
	var limit time.Duration
	bounded, looked := false, false
	for j := range b.shadow {
		st, sp := &b.shadow[j], b.policy.shadows[j].p
		jop := op
		capped := false
		if op == store.OpTake && sp.shapes {
			if !looked {
				limit, bounded = ctx.Value(maxDelayKey{}).(time.Duration)
				looked = true
			}
			capped = bounded
		}
		if capped {
			po, ok := st.decide(ctx, store.OpPeek, key, &h, cost, res.at)
			if !ok {
				continue
			}
			if po.allowed && po.delay > int64(limit) {
				jop = store.OpPeek
			}
		}
		o, ok := st.decide(ctx, jop, key, &h, cost, res.at)
		if !ok {
			continue
		}
		if capped {
			o = capShadow(sp, o, limit)
		}
		res.per[n+j] = o
		res.shadowSet |= 1 << j
		if !o.allowed {
			res.shadowDenied |= 1 << j
		}
	}
}

// decide applies op of cost for key to st at the instant at; ok is false
// when st's store failed. *h is key's hash in the in-memory store, computed
// on first use.
func (st *shadowTable) decide(ctx context.Context, op store.Op, key string, h *uint64, cost, at int64) (outcome, bool) {
	if st.mem != nil {
		var tmp Result
		if op == store.OpTake {
			if *h == 0 {
				*h = st.mem.hash(key)
			}
			st.mem.take(*h, at, cost, &tmp)
		} else {
			st.mem.do(&store.Request{Op: op, Key: key, Cost: cost, Now: at}, 0, &tmp)
		}
		return tmp.per[0], true
	}
	d, err := st.table.Do(ctx, store.Request{Op: op, Key: key, Cost: cost, Now: at})
	if err != nil {
		return outcome{}, false
	}
	so := &d.Outcomes[0]
	return outcome{allowed: so.Allowed, remaining: so.Remaining, resetAfter: int64(so.ResetAfter),
		retryAfter: int64(so.RetryAfter), delay: int64(so.Delay), hold: int64(so.Hold)}, true
}

// capShadow returns o, the outcome of the shadow limit of policy sp,
// bounded by limit as [WithMaxDelay] bounds the limit enforced alone.
func capShadow(sp *Policy, o outcome, limit time.Duration) outcome {
	var r Result
	r.policy, r.per[0] = sp, o
	r.set(0, &r.per[0])
	if !r.DenyDelay(limit) {
		r.capWait(int64(limit))
	}
	return r.per[0]
}

// resetShadows forgets key in every shadow limit, returning the first
// error.
func (l *Limiter) resetShadows(ctx context.Context, b *binding, key string, now int64) error {
	var first error
	for j := range b.shadow {
		if _, err := b.shadow[j].table.Do(ctx, store.Request{Op: store.OpReset, Key: key, Now: now}); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// ShadowDenied reports whether some shadow limit of the policy would have
// denied the request (see [Limit.Shadow]). It says nothing of the
// decision, which the enforced limits alone make.
func (r *Result) ShadowDenied() bool { return r.shadowDenied != 0 && r.hasShadows() }

// ShadowLimits returns what each shadow limit of the policy decided, in
// policy order (see [Policy.ShadowLimits]); nil for a policy without
// shadow limits. A shadow limit whose store failed is left out, as are
// all of them in the Result of a refund.
func (r *Result) ShadowLimits() []LimitResult { return r.AppendShadowLimits(nil) }

// AppendShadowLimits appends [Result.ShadowLimits] to dst and returns the
// extended slice.
func (r *Result) AppendShadowLimits(dst []LimitResult) []LimitResult {
	if !r.hasShadows() {
		return dst
	}
	n := len(r.policy.limits)
	for j := range r.policy.shadows {
		if r.shadowSet&(1<<j) == 0 {
			continue
		}
		s, o := &r.policy.shadows[j], &r.per[n+j]
		l := &s.p.limits[0]
		dst = append(dst, LimitResult{
			Name: s.Name, Quota: l.quota, Window: l.window, Allowed: o.allowed,
			Remaining: o.remaining, ResetAfter: time.Duration(o.resetAfter),
			RetryAfter: time.Duration(o.retryAfter), Delay: time.Duration(o.delay),
		})
	}
	return dst
}

func (r *Result) hasShadows() bool { return r.policy != nil && len(r.policy.shadows) > 0 }

// shadowDeniedNames returns the names of the shadow limits that would
// have denied res: a slice shared by every decision, never modified.
func (p *Policy) shadowDeniedNames(res *Result) []string {
	if len(p.shadows) == 0 {
		return nil
	}
	return p.shadowSets[res.shadowDenied]
}
