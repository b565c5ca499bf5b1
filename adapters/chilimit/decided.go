package chilimit

import (
	"context"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/floodgate-go/floodgate/middleware"
)

// uses counts, for each Middleware, the handlers Limit and LimitMux have
// wrapped with it: one Middleware mounted twice (one Limit value in a
// root router's Use and a sub-router's, or Limit and LimitMux) may decide
// a request twice, charging it twice in the same buckets. A Middleware is
// held weakly, its counter dropped once it is collected (a configuration
// reloaded makes new ones).
var uses sync.Map // weak.Pointer[middleware.Middleware] → *atomic.Int32

// usesOf returns the counter of m's uses.
func usesOf(m *middleware.Middleware) *atomic.Int32 {
	key := weak.Make(m)
	n, loaded := uses.LoadOrStore(key, new(atomic.Int32))
	if !loaded {
		runtime.AddCleanup(m, func(k weak.Pointer[middleware.Middleware]) { uses.Delete(k) }, key)
	}
	return n.(*atomic.Int32)
}

// decidedKey is the context key of the decision a Limit or LimitMux
// mounted more than once took for a request.
type decidedKey struct{}

// decision is what a Middleware decided a request by.
type decision struct {
	m                *middleware.Middleware
	pattern, methods string
}

// decidedBefore reports whether m decided r by pattern and methods
// already, mounted outside: r is then not charged again.
func decidedBefore(r *http.Request, m *middleware.Middleware, pattern, methods string) bool {
	d, _ := r.Context().Value(decidedKey{}).(*decision)
	return d != nil && d.m == m && d.pattern == pattern && d.methods == methods
}

// withDecision returns r telling the handlers inside that m decided it by
// pattern and methods.
func withDecision(r *http.Request, m *middleware.Middleware, pattern, methods string) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), decidedKey{}, &decision{m, pattern, methods}))
}
