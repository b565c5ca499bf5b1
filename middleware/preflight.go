package middleware

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/floodgate-go/floodgate/internal/both"
	"github.com/floodgate-go/floodgate/internal/routepath"
)

// Preflight says how the middleware limits CORS preflight requests: OPTIONS
// requests with an Origin and an Access-Control-Request-Method field, which
// a CORS handler or the router answers without running the route's handler.
//
// In every mode, a preflight that the router serves with a handler of its
// own — an OPTIONS route, or a route of every method — is limited as that
// route, in its buckets, as an OPTIONS request that is no preflight would
// be: no preflight is a free path to a handler. The middleware knows such a
// handler by the pattern that serves the request: r.Pattern, set by the
// application's ServeMux when the middleware is mounted on one of its
// handlers, by [Middleware.Handler] when it wraps the *http.ServeMux
// itself, or by a router adapter ("GET,OPTIONS /x"); a pattern without a
// method serves every method, subtree patterns ("/", "/api/") included.
// [Routes] also knows its own OPTIONS routes and routes of every method.
// With every Selector, a single limiter ([New], [PerIP]) and [NewKeyed]
// included, such a preflight is selected and counted as the OPTIONS
// request it is; with Routes, by the route of the handler it reaches, else
// by the default limiter (or, without one, as the modes say below). When
// nothing tells what serves a preflight (the middleware wraps a handler
// other than a *http.ServeMux, and no adapter names the route), the modes
// decide. The zero Preflight is [PreflightOwnBucket].
type Preflight uint8

const (
	// PreflightOwnBucket limits a preflight like the request it announces
	// (the method of Access-Control-Request-Method, on the same path), with
	// the same limiter but in a bucket of its own: a flood of preflights is
	// limited as strictly as the route, yet a browser's preflights take
	// nothing from its allowance of real requests.
	PreflightOwnBucket Preflight = iota
	// PreflightLikeRoute counts a preflight as a request to the route it
	// announces, in the route's buckets: each cross-origin request whose
	// preflight is not cached costs twice.
	PreflightLikeRoute
	// PreflightAsOptions treats a preflight as any OPTIONS request: it is
	// limited by the route its own method matches, else by the default
	// limiter ([NewRoutes]' def), else not at all. Choose it when a CORS
	// handler mounted before the middleware answers preflights anyway.
	PreflightAsOptions
)

// String returns the mode's name.
func (p Preflight) String() string {
	switch p {
	case PreflightOwnBucket:
		return "PreflightOwnBucket"
	case PreflightLikeRoute:
		return "PreflightLikeRoute"
	case PreflightAsOptions:
		return "PreflightAsOptions"
	}
	return fmt.Sprintf("Preflight(%d)", uint8(p))
}

// preflightScope prefixes the scope of preflight buckets. Route group
// names cannot contain its NUL byte, so no route's scope collides with it.
const preflightScope = "\x00preflight"

// ownRouter is a Selector that can tell whether a request reaches a route
// by its own method ([Routes]): a preflight that does is limited as that
// route.
type ownRouter interface {
	ownRoute(r *http.Request, template string) (Limiter, string, bool, error)
}

// selectLimiter is sel.Select with the Preflight mode applied.
func (m *Middleware) selectLimiter(r *http.Request, route string) (Limiter, string, error) {
	if o, ok := m.sel.(one); ok && (m.opts.Preflight == PreflightAsOptions || !routepath.IsOptions(r.Method)) {
		return o.l, "", nil // o.Select's answer, without the dynamic call
	}
	if m.opts.Preflight == PreflightAsOptions {
		return m.selectScoped(r, route)
	}
	method, ok := routepath.Preflight(r)
	if !ok {
		return m.selectScoped(r, route)
	}
	if own, ok := m.sel.(ownRouter); ok {
		l, scope, ok, err := own.ownRoute(r, route)
		if err != nil || ok {
			return l, scope, err
		}
	} else if servesMethod(r.Pattern, http.MethodOptions) {
		// It reaches a handler: the request it is, in that handler's
		// buckets, not a preflight's of its own.
		return m.selectScoped(r, route)
	}
	ann := *r
	ann.Method = method
	l, scope, err := m.selectScoped(&ann, route)
	if err != nil || l == nil || m.opts.Preflight == PreflightLikeRoute {
		return l, scope, err
	}
	if p, ok := l.(*both.Pair); ok {
		// Routes' several routes: each its preflight buckets.
		p.Prefix(preflightScope)
		return p, scope, nil
	}
	return l, preflightScope + scope, nil
}

// servesMethod reports whether the pattern p that serves a request
// (r.Pattern: a ServeMux pattern, or an adapter's list of the methods
// reaching a handler and its template) serves requests of method
// (canonical) with its handler: p has no method, or lists method in any
// ASCII case. It is false for "".
func servesMethod(p, method string) bool {
	p = strings.TrimLeft(p, " \t")
	if p == "" {
		return false
	}
	i := strings.IndexAny(p, " \t")
	if i < 0 || strings.Contains(p[:i], "/") {
		return true // a pattern without a method serves every method
	}
	return listed(p[:i], method)
}
