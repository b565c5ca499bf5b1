package chilimit

import (
	"reflect"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-chi/chi/v5"
)

// mountKey is where chi hands a request to a sub-router (r.Route,
// r.Mount): the pattern chi's RoutePattern gives there ("/api/*") and how
// many patterns chi has routed the request by (its RoutePatterns).
type mountKey struct {
	pattern string
	depth   int
}

// mount is a sub-router and the patterns chi routes a request by to
// reach it, joined ("/api/*", "/api/*/v2/*").
type mount struct {
	router chi.Routes
	prefix string
	depth  int // the patterns routed by to reach it
	// own names the methods the mounting router serves with handlers of
	// its own at the mount point's own path ("GET /api" beside
	// r.Route("/api", …)), "*" for all: chi routes the others there to
	// the sub-router.
	own map[string]bool
}

// owns reports whether the router mounting m serves method at m's own
// path with a handler of its own.
func (m *mount) owns(method string) bool {
	return m.own["*"] || m.own[method]
}

// mounts tells, for the root routers a Limit serves, whether chi has
// routed a request to its route or only to a sub-router's mount point,
// whose Use runs before that router routes. Both name a pattern ending
// in "*" when the sub-router has a catch-all ("/*" inside "/api" is
// "/api/*" too); the number of patterns routed tells them apart.
type mounts struct {
	mu  sync.Mutex
	all atomic.Pointer[map[chi.Routes]map[mountKey]*mount]
}

// pending returns the sub-router whose mount point rctx names, pattern
// being its RoutePattern, when chi has not routed the request past it:
// nil when chi has found the request's route (Limit inline). A mount
// point unknown when the root router's mounts were read is read again, at
// most once for each, if reread: a route the root's table lists (Limit
// inline) is none.
func (ms *mounts) pending(rctx *chi.Context, pattern string, reread bool) *mount {
	root := rctx.Routes
	if _, ok := root.(*chi.Mux); !ok && !reflect.ValueOf(root).Comparable() {
		return nil
	}
	m := ms.at(root, mountKey{pattern, len(rctx.RoutePatterns)}, reread)
	if m != nil && m.owns(rctx.RouteMethod) {
		return nil // a route of the mounting router's own, found
	}
	return m
}

// at returns the sub-router whose mount point is k on root, nil for none.
// Unless reread, a key unknown once root's mount points are read is none:
// each pattern a Find names would read them all again, under the lock.
func (ms *mounts) at(root chi.Routes, k mountKey, reread bool) *mount {
	if all := ms.all.Load(); all != nil {
		byKey, read := (*all)[root]
		if m, ok := byKey[k]; ok || read && !reread {
			return m
		}
	}
	ms.mu.Lock()
	defer ms.mu.Unlock()
	next := map[chi.Routes]map[mountKey]*mount{}
	if all := ms.all.Load(); all != nil {
		for r, m := range *all {
			next[r] = m
		}
	}
	m := mountsOf(root)
	for key, v := range next[root] {
		if _, seen := m[key]; !seen && v == nil {
			m[key] = nil // asked before, no mount point
		}
	}
	if _, ok := m[k]; !ok {
		m[k] = nil // a route chi found: asked once, not read again
	}
	next[root] = m
	ms.all.Store(&next)
	return m[k]
}

// mountsOf returns the mount points of router's sub-routers, at every
// depth.
func mountsOf(router chi.Routes) map[mountKey]*mount {
	m := map[mountKey]*mount{}
	var visit func(r chi.Routes, prefix string, depth int)
	visit = func(r chi.Routes, prefix string, depth int) {
		routes := r.Routes()
		own := map[string]map[string]bool{} // the methods of r's own handlers by pattern
		for _, rt := range routes {
			if rt.SubRoutes == nil {
				if own[rt.Pattern] == nil {
					own[rt.Pattern] = map[string]bool{}
				}
				for method := range rt.Handlers {
					own[rt.Pattern][method] = true
				}
			}
		}
		for _, rt := range routes {
			if rt.SubRoutes == nil {
				continue
			}
			p := prefix + rt.Pattern
			sub := &mount{router: rt.SubRoutes, prefix: p, depth: depth + 1}
			m[mountKey{routePattern(p), depth + 1}] = sub
			if base, ok := strings.CutSuffix(rt.Pattern, "/*"); ok && !own[base]["*"] && !own[base+"/"]["*"] {
				// Mount("/api", …) routes "/api" and "/api/" to the
				// sub-router too, by patterns of their own, for the
				// methods the router gives no handler of its own there.
				stub := *sub
				stub.own = map[string]bool{}
				for _, o := range []map[string]bool{own[base], own[base+"/"]} {
					for method := range o {
						stub.own[method] = true
					}
				}
				m[mountKey{routePattern(prefix + base), depth + 1}] = &stub
			}
			visit(rt.SubRoutes, p, depth+1)
		}
	}
	visit(router, "", 0)
	return m
}

// stubs finds, on the root router root, the sub-routers whose mount point
// a Find names: a path chi routes to a mount point itself ("/api", which
// Find names by the mount point's own pattern, not descending) reaches
// the sub-router with the path "/". in is the sub-router Find is asked
// on, nil for root. The zero stubs finds none.
type stubs struct {
	ms   *mounts
	root chi.Routes
	in   *mount
}

// through returns pattern, which router.Find gave for method with rctx,
// or, when it names a sub-router's mount point, the pattern of the route
// that sub-router serves its path "/" with, joined to the mount point's.
func (st stubs) through(rctx *chi.Context, method, pattern string) string {
	if st.ms == nil || strings.HasSuffix(pattern, "*") {
		return pattern
	}
	if _, ok := st.root.(*chi.Mux); !ok && !reflect.ValueOf(st.root).Comparable() {
		return pattern
	}
	depth, prefix := len(rctx.RoutePatterns), ""
	if st.in != nil {
		depth += st.in.depth
		prefix = st.in.prefix
	}
	sub := st.ms.at(st.root, mountKey{routePattern(prefix + pattern), depth}, false)
	if sub == nil || sub.owns(method) {
		return pattern
	}
	rctx.Reset()
	if p := sub.router.Find(rctx, method, "/"); p != "" {
		return strings.TrimPrefix(sub.prefix+p, prefix)
	}
	return pattern
}
