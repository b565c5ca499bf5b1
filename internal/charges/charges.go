// Package charges lets a router adapter ask what a
// [github.com/floodgate-go/floodgate/middleware.Middleware] would charge a
// request with, deciding nothing: an adapter that may meet one Middleware
// twice on a request's way (chilimit, its uses in a router's Use and
// inline) takes the first decision for the second only when both charge
// the same buckets by the same cost. Comparing the request alone is not
// enough: a key may read what the router sets on the very request between
// the two uses (chi's URL parameters, r.PathValue), so that one unchanged
// request has two keys.
package charges

import "net/http"

// Charge is what a decision charges: a limiter (or what stands for it: a
// Middleware of one limiter, for that limiter, which == may not compare),
// the key it is given (its scope joined) and the cost. It is compared
// with Same only.
type Charge struct {
	Lim  any
	Key  string
	Cost int64
}

// Of returns what m (a *middleware.Middleware) charges r with when r is
// limited by route, deciding nothing: the limiter its Selector picks, the
// key and the cost its options give. ok is false when r would not be
// charged (skipped, unlimited) or when its key, limiter or cost cannot be
// told: a caller then decides r as it would have. Package middleware sets
// it; it calls the key and cost functions, as a decision does.
var Of func(m any, r *http.Request, route string) (c Charge, ok bool)

// Decided returns what the decision admitted as a (a
// *middleware.Admission from Begin) charged, as Of tells it, without
// running the key, the Selector or the cost again; ok is false when a
// does not tell it (skipped, unlimited, undecided, or a key the decision
// did not spell out): a caller then asks Of. Package middleware sets it.
var Decided func(a any) (c Charge, ok bool)

// Same reports whether a and b charge one set of buckets by one cost
// (false when that cannot be told). Package middleware sets it.
var Same func(a, b Charge) bool
