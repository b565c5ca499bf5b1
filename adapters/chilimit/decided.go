package chilimit

import (
	"context"
	"hash/maphash"
	"net/http"
	"net/url"
	"runtime"
	"sync"
	"weak"

	"github.com/floodgate-go/floodgate/middleware"
)

// uses holds, for each Middleware, what the handlers Limit and LimitMux
// have wrapped with it know of one another (see useState): one Middleware
// mounted twice (one Limit value in a root router's Use and a
// sub-router's, or Limit and LimitMux) may decide a request twice,
// charging it twice in the same buckets. A Middleware is held weakly, its
// state dropped once it is collected (a configuration reloaded makes new
// ones).
var uses sync.Map // weak.Pointer[middleware.Middleware] → *useState

// usesOf returns the state of m's uses.
func usesOf(m *middleware.Middleware) *useState {
	key := weak.Make(m)
	s, loaded := uses.LoadOrStore(key, new(useState))
	if !loaded {
		runtime.AddCleanup(m, func(k weak.Pointer[middleware.Middleware]) { uses.Delete(k) }, key)
	}
	return s.(*useState)
}

// decidedKey is the context key of the decision a Limit or LimitMux
// mounted more than once took for a request.
type decidedKey struct{}

// decision is what a Middleware decided a request by, and the request it
// passed on: a use inside takes the decision for its own only when given
// that very request, unchanged. The buckets a decision charges depend on
// more than the route: the key (a user an authentication middleware
// between the two uses stored in the context, a RemoteAddr chi's RealIP
// rewrote in place, a header), Options.Skip, Options.Cost. A request
// changed in any of these is decided again.
type decision struct {
	m                *middleware.Middleware
	pattern, methods string
	r                *http.Request // the request passed on, its context holding the decision
	method, addr     string
	host             string
	url              url.URL
	header           uint64 // headerSum of its header
}

// decidedBefore reports whether m decided r by pattern and methods
// already, mounted outside, and r is the request it passed on, unchanged:
// r is then not charged again.
func decidedBefore(r *http.Request, m *middleware.Middleware, pattern, methods string) bool {
	d, _ := r.Context().Value(decidedKey{}).(*decision)
	return d != nil && d.m == m && d.pattern == pattern && d.methods == methods &&
		d.r == r && d.method == r.Method && d.addr == r.RemoteAddr && d.host == r.Host &&
		r.URL != nil && d.url == *r.URL && d.header == headerSum(r.Header)
}

// withDecision returns r telling the handlers inside that m decided it by
// pattern and methods.
func withDecision(r *http.Request, m *middleware.Middleware, pattern, methods string) *http.Request {
	if r.URL == nil {
		return r
	}
	d := &decision{m: m, pattern: pattern, methods: methods, method: r.Method, addr: r.RemoteAddr, host: r.Host, url: *r.URL, header: headerSum(r.Header)}
	d.r = r.WithContext(context.WithValue(r.Context(), decidedKey{}, d))
	return d.r
}

// headerSeed seeds headerSum.
var headerSeed = maphash.MakeSeed()

// headerSum returns a sum of h's fields, names and values, in no order:
// a field set, changed or removed in place changes it.
func headerSum(h http.Header) uint64 {
	var sum uint64
	for name, values := range h {
		var mh maphash.Hash
		mh.SetSeed(headerSeed)
		mh.WriteString(name)
		for _, v := range values {
			mh.WriteByte(0)
			mh.WriteString(v)
		}
		sum += mh.Sum64()
	}
	return sum
}
