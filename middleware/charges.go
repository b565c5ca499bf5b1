package middleware

import (
	"net/http"

	"github.com/floodgate-go/floodgate/internal/both"
	"github.com/floodgate-go/floodgate/internal/charges"
	"github.com/floodgate-go/floodgate/internal/same"
)

func init() {
	charges.Of = func(m any, r *http.Request, route string) (charges.Charge, bool) {
		mw, _ := m.(*Middleware)
		return mw.chargeOf(r, route)
	}
	charges.Same = sameCharge
	charges.Decided = func(a any) (charges.Charge, bool) {
		ad, _ := a.(*Admission)
		return ad.charge()
	}
}

// charge returns what the decision admitted as a charged, as chargeOf
// tells it (see charges.Decided).
func (a *Admission) charge() (charges.Charge, bool) {
	if a == nil || a.m == nil || a.lim == nil || a.key == "" {
		return charges.Charge{}, false
	}
	return charges.Charge{Lim: a.m.charged(a.lim), Key: a.key, Cost: a.cost}, true
}

// charged is what a charge of lim names as its limiter: lim, or m when m
// has one limiter whatever the request, which m stands for (a limiter ==
// cannot compare, a value holding a slice, can then be told by m).
func (m *Middleware) charged(lim Limiter) any {
	if _, ok := m.sel.(one); ok {
		return m
	}
	return lim
}

// chargeOf returns what a decision of r by route charges, deciding
// nothing, as begin would decide it (see charges.Of).
func (m *Middleware) chargeOf(r *http.Request, route string) (charges.Charge, bool) {
	if m == nil || m.sel == nil || m.opts.Skip != nil && m.opts.Skip(r) {
		return charges.Charge{}, false
	}
	lim, scope, err := m.selectLimiter(r, route)
	if err != nil || lim == nil {
		return charges.Charge{}, false
	}
	key, err := scopedKey(m.key, r, scope)
	if err != nil {
		return charges.Charge{}, false
	}
	cost := int64(1)
	if m.opts.Cost != nil {
		if cost = m.opts.Cost(r); cost < 1 {
			return charges.Charge{}, false
		}
	}
	return charges.Charge{Lim: m.charged(lim), Key: key, Cost: cost}, true
}

// sameCharge reports whether a and b charge one set of buckets by one
// cost: one key and cost on one limiter, or on two Pairs (made afresh
// for each request) of the same parts. A limiter == cannot compare (a
// func, a struct holding a slice) is one limiter when it is the same
// value by identity (see same.Identical): the same closure, the same
// slice.
func sameCharge(a, b charges.Charge) bool {
	if a.Key != b.Key || a.Cost != b.Cost {
		return false
	}
	pa, okA := a.Lim.(*both.Pair)
	pb, okB := b.Lim.(*both.Pair)
	if okA && okB {
		return pa.SameParts(pb)
	}
	return same.Identical(a.Lim, b.Lim)
}
