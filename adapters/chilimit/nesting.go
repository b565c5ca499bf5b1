package chilimit

import (
	"net/http"
	"reflect"
	"sync"
	"sync/atomic"

	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
)

// useState is what the handlers Limit and LimitMux wrapped with one
// Middleware know of one another: how many there are, and whether one
// request can meet two of them, so that only then a request pays for the
// guard against a decision taken twice (see serve).
type useState struct {
	n    atomic.Int32 // handlers wrapped
	mu   sync.Mutex   // serialises readings of the trees
	view atomic.Pointer[nestView]
}

// nestView is a reading of the trees of the root routers m served a
// request under; it is never changed once published.
type nestView struct {
	n     int32 // handlers wrapped when it was read
	roots map[chi.Routes]rootNest
	// twice tells that a request can meet m twice: a path of a tree
	// meets two of its uses, or not every handler wrapped with m is in
	// the trees read (a router served by a handler of a route, a
	// NotFound handler, a router not read yet): it may be inside one.
	twice bool
}

// rootNest is a root router's tree as read for one Middleware when the
// root's route table had been read reads times.
type rootNest struct {
	reads  uint64
	nested bool            // a path meets two uses
	uses   map[useKey]bool // the uses of the Middleware in the tree
}

// useKey is a handler chi wrapped with a use: the router whose Use list
// holds it, or the *chi.ChainHandler of an inline route, and its index
// there.
type useKey struct {
	holder any
	i      int
}

// twice reports whether a request that a use of m serves under root (nil
// for none: served outside a chi router) can meet another use of m, from
// a reading of root's tree made when root's route table had been read
// reads times. A Middleware wrapped once never can; a tree that cannot be
// read (another router type than chi's, a use outside any router) may.
func (s *useState) twice(m *middleware.Middleware, root chi.Routes, reads uint64) bool {
	n := s.n.Load()
	if n <= 1 {
		return false
	}
	if root == nil || !mapKey(root) {
		return true
	}
	if v := s.view.Load(); v != nil && v.n == n {
		if rn, ok := v.roots[root]; ok && rn.reads == reads {
			return v.twice
		}
	}
	return s.read(m, root, reads, n)
}

// read reads root's tree for m's uses and publishes the view it makes.
func (s *useState) read(m *middleware.Middleware, root chi.Routes, reads uint64, n int32) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if v := s.view.Load(); v != nil && v.n == n {
		if rn, ok := v.roots[root]; ok && rn.reads == reads {
			return v.twice // read by another request meanwhile
		}
	}
	next := &nestView{n: n, roots: map[chi.Routes]rootNest{}}
	if v := s.view.Load(); v != nil {
		for r, rn := range v.roots {
			next.roots[r] = rn
		}
	}
	next.roots[root] = nestOf(m, root, reads)
	all := map[useKey]bool{}
	for _, rn := range next.roots {
		next.twice = next.twice || rn.nested
		for k := range rn.uses {
			all[k] = true
		}
	}
	next.twice = next.twice || int32(len(all)) < n
	s.view.Store(next)
	return next.twice
}

// nestOf reads root's tree for m's uses: each in a router's Use list or
// a route's inline middlewares, and whether a path from root to a route
// meets two. It panics with core.ErrInvalidConfig on a router mounted
// inside itself (see descent).
func nestOf(m *middleware.Middleware, root chi.Routes, reads uint64) rootNest {
	rn := rootNest{reads: reads, uses: map[useKey]bool{}}
	var visit func(r chi.Routes, above int, d descent)
	visit = func(r chi.Routes, above int, d descent) {
		routes := r.Routes()
		own := 0
		if len(routes) > 0 { // chi wraps a router's Use list at its first route
			own = rn.count(m, r, r.Middlewares())
		}
		for _, rt := range routes {
			inline := 0
			for _, h := range rt.Handlers {
				if c, ok := h.(*chi.ChainHandler); ok {
					inline = max(inline, rn.count(m, c, c.Middlewares))
				}
			}
			if above+own+inline > 1 {
				rn.nested = true
			}
			if rt.SubRoutes != nil {
				visit(rt.SubRoutes, above+own+inline, d.into(rt.SubRoutes, rt.Pattern))
			}
		}
	}
	visit(root, 0, descent{root})
	return rn
}

// count returns how many of mws, held by holder, are uses of m, and adds
// them to rn's uses.
func (rn *rootNest) count(m *middleware.Middleware, holder any, mws chi.Middlewares) int {
	if !reflect.ValueOf(holder).Comparable() {
		return 0
	}
	c := 0
	for i, mw := range mws {
		if useOf(mw) == m {
			rn.uses[useKey{holder, i}] = true
			c++
		}
	}
	return c
}

// probe is the handler a Limit or LimitMux middleware is asked to wrap to
// tell which Middleware it limits with: it returns a probe naming it,
// wrapping nothing and counting no use.
type probe struct{ m *middleware.Middleware }

func (probe) ServeHTTP(http.ResponseWriter, *http.Request) {}

// code holds the code pointers of functions.
type code struct{ m sync.Map } // uintptr → struct{}

// ours holds the code of the middleware functions Limit and LimitMux
// return: only those are asked to wrap a probe.
var ours code

// add records f's code and returns f.
func (c *code) add(f func(http.Handler) http.Handler) func(http.Handler) http.Handler {
	c.m.LoadOrStore(reflect.ValueOf(f).Pointer(), struct{}{})
	return f
}

// has reports whether f's code was added.
func (c *code) has(f func(http.Handler) http.Handler) bool {
	_, ok := c.m.Load(reflect.ValueOf(f).Pointer())
	return ok
}

// useOf returns the Middleware mw limits with when it is a Limit or
// LimitMux middleware, nil otherwise (another middleware, or one wrapping
// ours: its use is not seen, and counted as maybe nested).
func useOf(mw func(http.Handler) http.Handler) *middleware.Middleware {
	if mw == nil {
		return nil
	}
	if !ours.has(mw) {
		return nil
	}
	p, _ := mw(probe{}).(probe)
	return p.m
}
