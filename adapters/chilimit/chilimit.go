// Package chilimit mounts a floodgate [middleware.Middleware] on a chi
// router (github.com/go-chi/chi/v5). The common case is one line, each
// client IP at one rate: r.Use(chilimit.MustPerIP("100/min")) ([PerIP]).
//
// [Limit] and [LimitMux] pass chi's route pattern
// ("/users/{id}") as the route template, so that per-route policies
// ([middleware.Routes]) apply to a route however many URLs it matches.
//
// chi completes a request's route pattern only while routing, so the
// limiter must run where the pattern is known. Two mounts do that:
//
//   - [Limit] as inline middleware: r.With(chilimit.Limit(m)).Get(...), or
//     r.Use(chilimit.Limit(m)) inside r.Group. chi runs inline middleware
//     after the route is found, wherever the group is (in r.Route too).
//   - [LimitMux] with the root router's Use: it resolves the pattern itself
//     with the router's Find before routing, so it limits every request,
//     404s and 405s included (with the route template "").
//
// The Use of a router runs before that router routes: chi names no
// pattern in the root router's Use, and only the mount point's ("/api/*")
// in the Use of a sub-router made by r.Route or r.Mount, which is also the
// pattern of a catch-all of that sub-router. Limit mounted there finds the
// route chi will serve the request with, as LimitMux does, on that
// sub-router by the path chi routes there (the root router in the root's
// Use); a request reaching no route is selected by its path, as by plain
// net/http. Inline, it takes the route chi found. Prefer LimitMux on the
// root router, or Limit inline.
//
// Both tell [middleware.Routes] which methods reach the handler a request
// reaches, from the root router's routes (read as chi.Walk reads them, at the first
// request and again for a route added since): a handler registered for
// every method (Handle, HandleFunc, Mount) or several is limited by the
// route guarding it whatever method reaches it, so the handler of
// r.Handle("/login", h) limited as "POST /login" is limited so for a PUT,
// a DELETE, a GET with credentials in its query; a handler registered for
// GET alone keeps its own route. Limit mounted where chi has not routed
// yet finds such a handler's route as LimitMux does. chi knows a handler
// by its function: closures of one function literal count as one handler;
// give a method a route of its own to keep its handler apart. A route chi
// finds, with Limit inline, in a router the root cannot list (mounted
// behind a plain handler: r.Mount("/a", auth(sub))) is taken to be
// reached by every method, for the same reason.
//
// A router mounted inside a router it mounts reaches each route by
// endless patterns, which no table can list: its requests panic with
// core.ErrInvalidConfig.
//
// The decision, the headers and the 429 answer are the middleware's; the
// key is Options.Key (by default the client IP from RemoteAddr). Key
// functions see the request as chi's middleware left it: the user an
// authentication middleware mounted before the limiter stored with
// r.WithContext(context.WithValue(…)) is keyfunc.UserFromContext's to read.
// Mount the limiter after the authentication (LimitMux too: r.Use(auth)
// before r.Use(chilimit.LimitMux(m, r))); a limiter that runs first finds
// no user and refuses the request (403).
//
// RemoteAddr, too, is what the middleware before the limiter left it:
// chi's middleware.RealIP (deprecated by chi for this reason) replaces it
// with the True-Client-IP, X-Real-IP or left-most X-Forwarded-For of any
// request. Mounted before the limiter on a server clients reach
// directly, or behind a proxy that appends to those headers rather than
// overwriting them, it lets each client choose its key (a fresh budget per
// made-up address, a victim's spent with the victim's address). Mount the limiter before RealIP, and behind proxies
// key it by keyfunc.ClientIP with their networks.
package chilimit

import (
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/isnil"
	"github.com/floodgate-go/floodgate/internal/routemethods"
	"github.com/floodgate-go/floodgate/internal/routepath"
	"github.com/floodgate-go/floodgate/middleware"
	"github.com/go-chi/chi/v5"
)

// Limit returns chi inline middleware limiting requests with m by chi's
// route pattern; see the package documentation for where to mount it. It
// panics, when the router is built, if m is nil or not made by
// middleware.New or NewSelect, or if it is applied to a nil handler.
func Limit(m *middleware.Middleware) func(http.Handler) http.Handler {
	mustValidate(m)
	var tables tables
	var mounts mounts
	pool := sync.Pool{New: func() any { return chi.NewRouteContext() }}
	n := usesOf(m)
	return ours.add(func(next http.Handler) http.Handler {
		if _, ok := next.(probe); ok {
			return probe{m} // asked which Middleware it limits with
		}
		mustNext("Limit", next)
		n.n.Add(1)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rctx := chi.RouteContext(r.Context())
			t := tables.of(rctx)
			// chi joins a mount point's own "/api/" and a sub-router's
			// "/*" as "/api//*": the route is "/api/*".
			pattern := routePattern(rctx.RoutePattern())
			methods, method := "", ""
			routed := true // by chi, to the route the limiter runs inline on
			if t != nil {
				if method = rctx.RouteMethod; method == "" {
					method = r.Method
				}
				var listed bool
				if pattern != "" {
					// chi routed r by method to pattern: a route of it
					// added there since the routes were read is read.
					methods, listed = t.Routed(pattern, method)
				}
				// A sub-router's Use sees its mount point's pattern
				// ("/api/*"), which chi gives a catch-all route of the
				// sub-router too: there, not inline on a route chi has
				// found (found by the path chi routed, which a CleanPath
				// may have rewritten), the route is found again. A
				// pattern the root's table does not list is a route chi
				// found too, in a router the root cannot see (mounted
				// behind a plain handler: r.Mount("/a", auth(sub))),
				// whose mount point the root would find instead.
				var sub *mount
				if pattern != "" {
					// A route the table lists is no mount point unknown
					// yet: the mount points are not read again for it.
					sub = mounts.pending(rctx, pattern, !listed, t)
				}
				if pattern != "" && !listed && sub == nil {
					// A route chi found in a router the root cannot list
					// (mounted behind a plain handler: r.Mount("/a",
					// auth(sub))): which methods reach its handler is not
					// known, and it is taken to be reached by every one.
					methods = everyMethodWith(method) + " " + pattern
				}
				unrouted := pattern == "" || sub != nil
				routed = !unrouted
				if unrouted {
					// Mounted where chi has not routed yet (a router's Use):
					// the route found as LimitMux finds it limits a
					// handler several methods reach by its route, and a
					// preflight reaching a handler of OPTIONS alone as
					// the OPTIONS request it is (see middleware.Preflight).
					sc := pool.Get().(*chi.Context)
					var p, reached string
					var past bool
					if sub != nil {
						// The sub-router, by the path chi routes it with
						// there (the root's CleanPath has cleaned it).
						p, reached, past = findPath(sub.router, sc, r, subPath(rctx, pattern), stubs{&mounts, rctx.Routes, sub, t})
						if p != "" {
							p = routePattern(sub.prefix + p)
						}
					} else {
						p, reached, past = find(rctx.Routes, sc, r, stubs{&mounts, rctx.Routes, nil, t})
					}
					pool.Put(sc)
					if (past || reached != "" && unrouted) && p != pattern {
						// The route chi will serve the path with, as it
						// comes ("/opt/.." reaches "/opt/{k}", which
						// ServeMux would clean to "/"), where chi names
						// none yet or only a sub-router's mount point
						// (POST "/api/login" in the Use of r.Route("/api",
						// …) was charged as "/api/*"); a catch-all Routes
						// charges with the route its variant names.
						pattern, methods = p, ""
					}
					if reached != "" {
						ms, _ := t.Routed(p, reached)
						if ms == "" {
							ms = routepath.PreflightPattern(r, p)
						}
						if ms != "" {
							pattern, methods = p, ms
						}
					}
				}
			}
			var root chi.Routes
			var reads uint64
			variants := noVariants
			if t != nil {
				root, reads = rctx.Routes, t.Reads()
				variants = mounts.servesVariants(root, reads, pattern, method, r.URL.Path, routed)
			}
			serve(m, w, r, pattern, methods, next, n.twice(m, root, reads), variants)
		})
	})
}

// marked returns r marked for Routes as variants says (see
// routepath.ServeVariants), r itself for noVariants.
func marked(r *http.Request, variants variantMark) *http.Request {
	switch variants {
	case variantsWithin:
		return routepath.ServeVariants(r)
	case variantsAnywhere:
		return routepath.ServeRewritten(r)
	}
	return r
}

// subPath returns the path chi routes a request with in the sub-router
// mounted at its route pattern: in the sub-router's Use, the RoutePath
// chi's mount handler set; inline on the mount point itself
// (r.With(lim).Route("/a", …)), before the mount handler has run, the
// rest the mount point's catch-all matched, which the mount handler makes
// the sub-router's path. The parent's path there found no route of the
// sub-router: the request was decided by the mount point's "/a/*", and
// decided again, by its route, by a use inside, charged twice. A request
// for the mount point itself (pattern "/a" or "/a/", no catch-all) is
// routed there by "/" (see chi's Mux.nextRoutePath): the parent's path
// ("/a") would find the sub-router's "/a", another route, its own "/a/"
// left uncharged.
func subPath(rctx *chi.Context, pattern string) string {
	if !strings.HasSuffix(pattern, "*") {
		return "/"
	}
	keys, values := rctx.URLParams.Keys, rctx.URLParams.Values
	if n := len(keys) - 1; n >= 0 && keys[n] == "*" && n < len(values) {
		// chi's mount handler resets the value once past it.
		if values[n] != "" || rctx.RoutePath == "" {
			return "/" + values[n]
		}
	}
	return rctx.RoutePath
}

// LimitMux returns middleware for router.Use that limits requests with m by
// the route pattern router.Find resolves for them, before chi routes them.
// router is the router it is mounted on (its routes may be added after the
// Use call); a request chi is routing is resolved on the root router routing
// it, whichever router was given (another, or a sub-router the middleware is
// mounted on), and router serves only requests reaching the middleware before
// any chi router (LimitMux(m, r)(r)). It panics, when the router is built, if
// m is nil or not made by middleware.New or NewSelect, if router is nil, or
// if it is applied to a nil handler.
//
// It resolves the route as chi will, and as the variants of a request that
// reach the same handler: the routing path and method that middleware
// mounted before it set (CleanPath, StripSlashes, GetHead), then GET for a
// HEAD without a HEAD route (as GetHead routes it), the announced method
// for a CORS preflight without an OPTIONS route, and, when the path itself
// finds no route or only a catch-all ("/*"), the path cleaned, with its
// trailing slash toggled and in lower case (as path-rewriting middleware
// mounted after it may route it; a variant finding a route of its own is
// counted as that route, and, when a catch-all holds the path, as the
// catch-all's too, all or nothing: chi serves the path as it comes there).
// A request none of them finds is limited with the route template "".
// A request to a sub-router's mount point ("/b" and "/b/", which chi
// serves with one handler), and one reaching a route under a sub-router
// whose Use holds a middleware other than a limiter (which may rewrite
// the path after LimitMux: StripSlashes; chi's CleanPath does nothing in
// a sub-router), or under a root whose own Use holds StripSlashes or
// CleanPath, is charged, all or nothing, on the route a variant of its
// path names too.
func LimitMux(m *middleware.Middleware, router chi.Routes) func(http.Handler) http.Handler {
	mustValidate(m)
	if isnil.Value(router) {
		panic(fmt.Errorf("chilimit: LimitMux: nil router: %w", core.ErrInvalidConfig))
	}
	pool := sync.Pool{New: func() any { return chi.NewRouteContext() }}
	own := routemethods.New(func() []routemethods.Route { return walk(router) })
	var serving tables
	var ms mounts
	n := usesOf(m)
	return ours.add(func(next http.Handler) http.Handler {
		if _, ok := next.(probe); ok {
			return probe{m} // asked which Middleware it limits with
		}
		mustNext("LimitMux", next)
		n.n.Add(1)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// The root router serving r, when chi routes it: router may
			// be another (a program's second router, a sub-router).
			root, t := router, own
			if rc := chi.RouteContext(r.Context()); rc != nil {
				if st := serving.of(rc); st != nil {
					root, t = rc.Routes, st
				}
			}
			rctx := pool.Get().(*chi.Context)
			pattern, method, _ := find(root, rctx, r, stubs{&ms, root, nil, t})
			pool.Put(rctx)
			methods := ""
			if method != "" {
				methods, _ = t.Routed(pattern, method)
				if methods == "" {
					// A preflight reaching a handler of its method
					// alone, decided as the OPTIONS request it is (see
					// middleware.Preflight).
					methods = routepath.PreflightPattern(r, pattern)
				}
			}
			if method == "" {
				method = r.Method
			}
			serve(m, w, r, pattern, methods, next, n.twice(m, root, t.Reads()), ms.servesVariants(root, t.Reads(), pattern, method, r.URL.Path, false))
		})
	})
}

// find returns the pattern of the route router, the root router, serves r
// with, trying the variants of method and path that reach the same
// handler, and the method
// whose handler r reaches there: r's routing method, or GET for a HEAD;
// "" for none, and for a preflight limited like the method it announces,
// whose handler it does not reach.
//
// past reports a path that reaches a catch-all while a variant of it
// reaches a route of its own: pattern is then the catch-all's, which
// Routes charges with the variant's route.
//
// A path chi routes to a sub-router's mount point itself ("/api", which
// Find names by the mount point's own pattern) is found, with st, on the
// sub-router, by the path "/" chi routes it with there.
func find(router chi.Routes, rctx *chi.Context, r *http.Request, st stubs) (pattern, reached string, past bool) {
	path := ""
	if rc := chi.RouteContext(r.Context()); rc != nil && len(rc.RoutePatterns) == 0 {
		path = rc.RoutePath // not a sub-router's path
	}
	return findPath(router, rctx, r, path, st)
}

// findPath is find for the routing path path ("": r's).
func findPath(router chi.Routes, rctx *chi.Context, r *http.Request, path string, st stubs) (pattern, reached string, past bool) {
	method := r.Method
	if rc := chi.RouteContext(r.Context()); rc != nil && rc.RouteMethod != "" {
		method = rc.RouteMethod
	}
	if path == "" {
		path = r.URL.RawPath
		if path == "" {
			path = r.URL.Path
		}
	}
	method = routepath.Method(method)
	methods := [2]string{method}
	switch method {
	case http.MethodHead:
		methods[1] = http.MethodGet
	case http.MethodOptions:
		if v := r.Header["Access-Control-Request-Method"]; len(v) == 1 && len(r.Header["Origin"]) > 0 {
			methods[1] = routepath.Method(v[0])
		}
	}
	best, i := findMethods(router, rctx, methods, path, st)
	catch, ci := best, i
	catchAll := strings.HasSuffix(best, "*")
	if best == "" || catchAll {
		// No route, or only a catch-all ("/*"), holds the path: a variant
		// that a path-rewriting middleware would route to a route of its
		// own is counted as that route.
		// StripSlashes routes the path as it comes, its slash dropped
		// ("/users/./" to "/users/{id}"), before the cleaned variants.
		raw := ""
		if strings.HasSuffix(path, "/") {
			raw = routepath.ToggleSlash(path)
		}
		vs := routepath.Variants(path)
		for _, v := range append([]string{raw}, vs[:]...) {
			if v == "" {
				continue
			}
			if p, j := findMethods(router, rctx, methods, v, st); p != "" && (best == "" || !strings.HasSuffix(p, "*")) {
				best, i = p, j
				if !strings.HasSuffix(p, "*") {
					break
				}
			}
		}
		if catchAll && !strings.HasSuffix(best, "*") {
			// chi serves the path as it comes with the catch-all (a
			// file server, a handler reading the path), a rewriting
			// middleware after the limiter routes it to the variant's
			// route: Routes, given the catch-all, charges both, all or
			// nothing (see middleware.Routes).
			return catch, methods[ci], true
		}
	}
	if best == "" || i == 1 && method == http.MethodOptions {
		return best, "", false
	}
	return best, methods[i], false
}

// findMethods returns the pattern router finds for path with the first of
// methods that finds one, and that method's index.
func findMethods(router chi.Routes, rctx *chi.Context, methods [2]string, path string, st stubs) (string, int) {
	for i, m := range methods {
		if m == "" {
			continue
		}
		rctx.Reset()
		if p := router.Find(rctx, m, path); p != "" {
			return routePattern(st.through(rctx, m, p)), i
		}
	}
	return "", 0
}

// mustValidate panics if m cannot serve: a setup mistake, found when the
// router is built rather than at the first request.
func mustValidate(m *middleware.Middleware) {
	if err := m.Validate(); err != nil {
		panic(fmt.Errorf("chilimit: %w", err))
	}
}

// mustNext panics, when the middleware is applied, on a nil or typed-nil
// next handler: every request would panic on it.
func mustNext(who string, next http.Handler) {
	if isnil.Value(next) {
		panic(fmt.Errorf("chilimit: %s(nil next): no handler to pass admitted requests to: give the router or handler they go to: %w", who, core.ErrInvalidConfig))
	}
}

// serve limits r with m by its route pattern and the methods reaching its
// handler there (see middleware.Routes), then serves it with next. twice
// says r may meet m twice (see useState.twice): a request m has decided
// by the same pattern and methods, mounted outside, and passed on
// unchanged (see decision), is not charged again. variants says the
// handler of pattern serves variants of r's path too (see
// mounts.servesVariants).
func serve(m *middleware.Middleware, w http.ResponseWriter, r *http.Request, pattern, methods string, next http.Handler, twice bool, variants variantMark) {
	if twice && decidedBefore(r, m, pattern, methods, variants) {
		next.ServeHTTP(w, r)
		return
	}
	// The request decided: marked when the handler of pattern serves
	// variants of the path too (see mounts.servesVariants), whose route
	// Routes charges with it.
	dr := marked(r, variants)
	saved := dr.Pattern
	if methods != "" {
		dr.Pattern = methods // for the decision only (see middleware.Routes)
	}
	a, ok := m.Begin(w, dr, pattern)
	dr.Pattern = saved
	if !ok {
		return
	}
	r = a.Request(r) // tells the middlewares inside of the admission
	if twice {
		r = withDecision(r, m, pattern, methods, variants, &a)
	}
	if !a.Counting() {
		next.ServeHTTP(w, r)
		return
	}
	cw, status := middleware.Capture(w)
	next.ServeHTTP(cw, r)
	a.End(r.Context(), status())
}
