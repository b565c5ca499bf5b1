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
func (l *Limiter) decideShadows(ctx context.Context, b *binding, op store.Op, key string, h uint64, cost int64, res *Result) {
	res.shadowSet, res.shadowDenied = 0, 0
	n := len(b.policy.limits)
	for j := range b.shadow {
		st := &b.shadow[j]
		var o outcome
		if st.mem != nil {
			var tmp Result
			if op == store.OpTake {
				if h == 0 {
					h = st.mem.hash(key)
				}
				st.mem.take(h, res.at, cost, &tmp)
			} else {
				st.mem.do(&store.Request{Op: op, Key: key, Cost: cost, Now: res.at}, 0, &tmp)
			}
			o = tmp.per[0]
		} else {
			d, err := st.table.Do(ctx, store.Request{Op: op, Key: key, Cost: cost, Now: res.at})
			if err != nil {
				continue
			}
			so := &d.Outcomes[0]
			o = outcome{allowed: so.Allowed, remaining: so.Remaining, resetAfter: int64(so.ResetAfter),
				retryAfter: int64(so.RetryAfter), delay: int64(so.Delay), hold: int64(so.Hold)}
		}
		res.per[n+j] = o
		res.shadowSet |= 1 << j
		if !o.allowed {
			res.shadowDenied |= 1 << j
		}
	}
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
