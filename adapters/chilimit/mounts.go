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
// most once for each.
func (ms *mounts) pending(rctx *chi.Context, pattern string) *mount {
	root := rctx.Routes
	if _, ok := root.(*chi.Mux); !ok && !reflect.ValueOf(root).Comparable() {
		return nil
	}
	k := mountKey{pattern, len(rctx.RoutePatterns)}
	if all := ms.all.Load(); all != nil {
		if m, ok := (*all)[root][k]; ok {
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
		own := map[string]bool{} // the patterns of r's own handlers
		for _, rt := range routes {
			if rt.SubRoutes == nil {
				own[rt.Pattern] = true
			}
		}
		for _, rt := range routes {
			if rt.SubRoutes == nil {
				continue
			}
			p := prefix + rt.Pattern
			sub := &mount{router: rt.SubRoutes, prefix: p}
			m[mountKey{routePattern(p), depth + 1}] = sub
			if base, ok := strings.CutSuffix(rt.Pattern, "/*"); ok && !own[base] && !own[base+"/"] {
				// Mount("/api", …) routes "/api" and "/api/" to the
				// sub-router too, by patterns of their own (unless the
				// router gives them handlers of its own).
				m[mountKey{routePattern(prefix + base), depth + 1}] = sub
			}
			visit(rt.SubRoutes, p, depth+1)
		}
	}
	visit(router, "", 0)
	return m
}
