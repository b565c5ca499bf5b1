package chilimit

import (
	"reflect"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/floodgate-go/floodgate/internal/routemethods"
	"github.com/go-chi/chi/v5"
	chimw "github.com/go-chi/chi/v5/middleware"
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
	// ownAt names them apart for the mount point's path without its
	// slash ("/api", [0]) and with it ("/api/", [1]): chi routes a method
	// the router serves at one of them alone to the sub-router at the
	// other.
	ownAt [2]map[string]bool
	// rewrites says the sub-router's Use holds a middleware other than a
	// limiter of this package (see rewrites).
	rewrites bool
}

// owns reports whether the router mounting m serves method at m's own
// path with a handler of its own.
func (m *mount) owns(method string) bool {
	return m.own["*"] || m.own[method]
}

// ownsAt reports whether the router mounting m serves method at m's own
// path, with its trailing slash or without (slash), with a handler of
// its own.
func (m *mount) ownsAt(method string, slash bool) bool {
	o := m.ownAt[0]
	if slash {
		o = m.ownAt[1]
	}
	return o["*"] || o[method]
}

// mounts tells, for the root routers a Limit serves, whether chi has
// routed a request to its route or only to a sub-router's mount point,
// whose Use runs before that router routes. Both name a pattern ending
// in "*" when the sub-router has a catch-all ("/*" inside "/api" is
// "/api/*" too); the number of patterns routed tells them apart.
type mounts struct {
	mu  sync.Mutex
	all atomic.Pointer[map[chi.Routes]*reading]
}

// reading is a root router's mount points as read once its route table
// had been read reads times (see routemethods.Table.Reads): a route table
// read again since saw a route added since, maybe a router mounted.
type reading struct {
	reads uint64
	byKey map[mountKey]*mount
	// What servesVariants asks at each request, read with the mount
	// points: the stubs of byKey by pattern (a mount point's own path,
	// see mountsOf), the bases ("/a/") of the sub-routers whose Use holds
	// a middleware other than a limiter (see rewrites), and whether the
	// root's own Use holds one of chi's path rewriters (see
	// rewritesPath). chi refuses a Use after a route, and a route added
	// since makes a new reading.
	points       map[string][]*mount
	rewriting    []string
	rewritesPath bool
}

// newReading returns the reading of root's mount points m, made once its
// route table had been read reads times.
func newReading(root chi.Routes, reads uint64, m map[mountKey]*mount) *reading {
	rd := &reading{reads: reads, byKey: m, rewritesPath: rewritesPath(root)}
	for k, mt := range m {
		switch {
		case mt == nil:
		case mt.own != nil:
			if rd.points == nil {
				rd.points = map[string][]*mount{}
			}
			rd.points[k.pattern] = append(rd.points[k.pattern], mt)
		case mt.rewrites:
			rd.rewriting = append(rd.rewriting, strings.TrimSuffix(k.pattern, "*")) // "/a/"
		}
	}
	return rd
}

// pending returns the sub-router whose mount point rctx names, pattern
// being its RoutePattern, when chi has not routed the request past it:
// nil when chi has found the request's route (Limit inline). t is the
// table of rctx's root router. A mount point unknown when the root
// router's mounts were read is read again, at most once for each, if
// reread: a route the root's table lists (Limit inline) is none.
func (ms *mounts) pending(rctx *chi.Context, pattern string, reread bool, t *routemethods.Table) *mount {
	root := rctx.Routes
	if !mapKey(root) {
		return nil
	}
	m := ms.at(root, mountKey{pattern, len(rctx.RoutePatterns)}, reread, t.Reads())
	if m != nil && m.owns(rctx.RouteMethod) {
		return nil // a route of the mounting router's own, found
	}
	return m
}

// at returns the sub-router whose mount point is k on root, nil for none,
// from a reading of root's mount points made once its route table had
// been read reads times or more: a router mounted after the first request
// is seen once the route table has seen a route of it. Unless reread, a
// key unknown to that reading is none: each pattern a Find names would
// read them all again, under the lock.
func (ms *mounts) at(root chi.Routes, k mountKey, reread bool, reads uint64) *mount {
	if m, ok := ms.known(root, k, reread, reads); ok {
		return m
	}
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if m, ok := ms.known(root, k, reread, reads); ok {
		return m // read by another request meanwhile
	}
	next := map[chi.Routes]*reading{}
	if all := ms.all.Load(); all != nil {
		for r, rd := range *all {
			next[r] = rd
		}
	}
	m := mountsOf(root)
	if old := next[root]; old != nil {
		for key, v := range old.byKey {
			if _, seen := m[key]; !seen && v == nil {
				m[key] = nil // asked before, no mount point
			}
		}
		reads = max(reads, old.reads)
	}
	if _, ok := m[k]; !ok {
		m[k] = nil // a route chi found: asked once, not read again
	}
	next[root] = newReading(root, reads, m)
	ms.all.Store(&next)
	return m[k]
}

// known returns at's answer from the reading published, and whether it
// answers: a reading as recent as reads that knows k, or, unless reread,
// does not.
func (ms *mounts) known(root chi.Routes, k mountKey, reread bool, reads uint64) (*mount, bool) {
	all := ms.all.Load()
	if all == nil {
		return nil, false
	}
	rd := (*all)[root]
	if rd == nil || rd.reads < reads {
		return nil, false
	}
	m, ok := rd.byKey[k]
	return m, ok || !reread
}

// mountsOf returns the mount points of router's sub-routers, at every
// depth. It panics with core.ErrInvalidConfig on a router mounted inside
// itself (see descent).
func mountsOf(router chi.Routes) map[mountKey]*mount {
	m := map[mountKey]*mount{}
	var visit func(r chi.Routes, prefix string, depth int, d descent)
	visit = func(r chi.Routes, prefix string, depth int, d descent) {
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
			sub := &mount{router: rt.SubRoutes, prefix: p, depth: depth + 1, rewrites: rewrites(rt.SubRoutes)}
			m[mountKey{routePattern(p), depth + 1}] = sub
			if base, ok := strings.CutSuffix(rt.Pattern, "/*"); ok && !own[base]["*"] && !own[base+"/"]["*"] {
				// Mount("/api", …) routes "/api" and "/api/" to the
				// sub-router too, by patterns of their own, for the
				// methods the router gives no handler of its own there.
				stub := *sub
				stub.own = map[string]bool{}
				for i, o := range []map[string]bool{own[base], own[base+"/"]} {
					stub.ownAt[i] = o
					for method := range o {
						stub.own[method] = true
					}
				}
				m[mountKey{routePattern(prefix + base), depth + 1}] = &stub
			}
			visit(rt.SubRoutes, p, depth+1, d.into(rt.SubRoutes, p))
		}
	}
	visit(router, "", 0, descent{router})
	return m
}

// stubs finds, on the root router root, the sub-routers whose mount point
// a Find names: a path chi routes to a mount point itself ("/api", which
// Find names by the mount point's own pattern, not descending) reaches
// the sub-router with the path "/". in is the sub-router Find is asked
// on, nil for root; t is root's route table. The zero stubs finds none.
type stubs struct {
	ms   *mounts
	root chi.Routes
	in   *mount
	t    *routemethods.Table
}

// through returns pattern, which router.Find gave for method with rctx,
// or, when it names a sub-router's mount point, the pattern of the route
// that sub-router serves its path "/" with, joined to the mount point's.
func (st stubs) through(rctx *chi.Context, method, pattern string) string {
	if st.ms == nil || st.t == nil || strings.HasSuffix(pattern, "*") {
		return pattern
	}
	if !mapKey(st.root) {
		return pattern
	}
	depth, prefix := len(rctx.RoutePatterns), ""
	if st.in != nil {
		depth += st.in.depth
		prefix = st.in.prefix
	}
	key := routePattern(prefix + pattern)
	// A pattern the table has not seen reads the routes again (a router
	// mounted since): the mount points are then read again too.
	st.t.Lookup(key, method)
	sub := st.ms.at(st.root, mountKey{key, depth}, false, st.t.Reads())
	if sub == nil || sub.owns(method) {
		return pattern
	}
	rctx.Reset()
	if p := sub.router.Find(rctx, method, "/"); p != "" {
		return strings.TrimPrefix(sub.prefix+p, prefix)
	}
	return pattern
}

// servesVariants reports whether the handler chi serves a request with by
// pattern (as routePattern names it) and method, on root (whose route
// table has been read reads times), may be reached by the variants of the
// request's path too (see routepath.ServeVariants): a sub-router's "/"
// route, which chi serves at its mount point with and without its slash
// ("/b", "/b/", both named "/b") unless the mounting router serves the
// method at the spelling of path, the request's, with a handler of its
// own; and, unless chi has routed the request
// already (routed), a route under a sub-router whose Use holds a
// middleware other than a limiter of this package (StripSlashes, any
// that may rewrite the path chi routes there): the
// limiter, outside it, found the route by the path as it came; and,
// unless routed, any route of a root whose own Use holds chi's
// StripSlashes or CleanPath (see rewritesPath), which may run after the
// limiter there.
func (ms *mounts) servesVariants(root chi.Routes, reads uint64, pattern, method, path string, routed bool) variantMark {
	if pattern == "" || !mapKey(root) {
		return noVariants
	}
	ms.at(root, mountKey{pattern, -1}, false, reads) // the mount points read
	all := ms.all.Load()
	if all == nil || (*all)[root] == nil {
		return noVariants
	}
	rd := (*all)[root]
	if !routed && rd.rewritesPath {
		return variantsAnywhere
	}
	for _, m := range rd.points[pattern] {
		// A mount point's own path ("/b"), routed to the sub-router.
		// The mounting router may serve the method at one spelling
		// alone ("GET /api" added after the mount): chi routes the
		// other, which path is, there (see mountsOf), named alike.
		if !m.ownsAt(method, strings.HasSuffix(path, "/")) {
			return variantsWithin
		}
	}
	if !routed {
		for _, base := range rd.rewriting {
			if strings.HasPrefix(pattern, base) || pattern+"/" == base {
				return variantsWithin
			}
		}
	}
	return noVariants
}

// variantMark says which variants of a request's path the handler of its
// route serves too (see mounts.servesVariants).
type variantMark uint8

const (
	noVariants       variantMark = iota
	variantsWithin               // under the route's literal start (routepath.ServeVariants)
	variantsAnywhere             // anywhere (routepath.ServeRewritten)
)

// rewrites reports whether the Use of router holds a middleware other
// than a limiter of this package: one that may rewrite the path router
// routes by.
func rewrites(router chi.Routes) bool {
	for _, mw := range router.Middlewares() {
		if useOf(mw) == nil {
			return true
		}
	}
	return false
}

// pathRewriters are the entry points of chi's middlewares that rewrite the
// path chi routes by and serve the request (RedirectSlashes answers with
// a redirect, whose own request is limited as it comes).
var pathRewriters = [...]uintptr{
	reflect.ValueOf(chimw.StripSlashes).Pointer(),
	reflect.ValueOf(chimw.CleanPath).Pointer(),
}

// rewritesPath reports whether the Use of router, the root, holds one of
// chi's path-rewriting middlewares (pathRewriters), found by function: a
// root's Use holds a logger or an authentication middleware in most
// programs, which rewrite no path, and a request of every route would be
// charged on its variant's too (a sub-router's Use, see rewrites, holds
// any).
func rewritesPath(router chi.Routes) bool {
	for _, mw := range router.Middlewares() {
		if mw == nil {
			continue
		}
		p := reflect.ValueOf(mw).Pointer()
		for _, rw := range pathRewriters {
			if p == rw {
				return true
			}
		}
	}
	return false
}
