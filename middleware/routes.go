package middleware

import (
	"fmt"
	"iter"
	"net/http"
	"net/netip"
	"net/url"

	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/floodgate-go/floodgate/core"
	"github.com/floodgate-go/floodgate/internal/both"
	"github.com/floodgate-go/floodgate/internal/routepath"
	"github.com/floodgate-go/floodgate/internal/same"
)

// Routes is a [Selector] that picks a limiter by route: Go 1.22 ServeMux
// patterns ("POST /login", "GET /api/", "/users/{id}") for plain net/http,
// and the router's own template ("/users/{id}", "/users/:id") when an
// adapter passes one. The route is part of the key, so two routes never
// share buckets, even with the same limiter, unless [Routes.Share] groups
// them. Configure Routes before serving; it is then safe for concurrent use.
// Once it has served a request, Add and Share refuse: a table changed
// under the requests reading it would race them.
//
// A request is limited by the route of the handler it reaches, whatever
// variant of method and path it reaches it with:
//
//   - Methods are matched without regard to case ("get" is GET), in
//     patterns and requests alike. ServeMux matches a pattern's method as
//     written, so that "get /users/1" is served by "/", not by "GET
//     /users/{id}": a request whose method is not written canonically is
//     charged, all or nothing, on the routes (else the default) its method
//     reaches in canonical form and as written, each with the route a
//     variant of its path names there (see below).
//   - The application's own ServeMux pattern decides first when it is
//     known and matches one path, not a subtree (whose handler may route
//     further): r.Pattern, set by the ServeMux when the middleware is
//     mounted on one of its handlers, and by [Middleware.Handler] when it
//     wraps the application's *http.ServeMux itself. The route of that
//     pattern is the request's; a pattern without a method ("/login")
//     serves every method with its handler, so a request of any method is
//     limited by the route added for its path ("POST /login"): by its
//     method's, GET's for HEAD, else the first added. A PUT or a GET
//     carrying credentials in its query reaches a login handler registered
//     without a method as surely as a POST does. A route written otherwise
//     than that pattern at the same path ("POST /users/{user}/login" for
//     "/users/{id}/login", a route with or without the pattern's host)
//     guards it so too: the first added that ServeMux matches the request
//     to with its own method.
//   - A router's template says nothing of the methods its handler serves,
//     so the adapters (chilimit, ginlimit, echolimit) say it: while the
//     request is decided, r.Pattern names the methods reaching the handler
//     the request reaches, when there are several, and the template
//     ("PUT,POST,DELETE /login"; the router's every method for chi's
//     Handle, gin's and echo's Any). A request whose method has no route
//     of its own at the template is then limited by the first route added
//     there for one of those methods: a handler of every method limited
//     as "POST /login" is limited so for a PUT, a DELETE, a GET with
//     credentials in its query, while a handler registered for GET alone
//     (a login page) keeps its own route, or the default. A route written
//     otherwise than the template ("POST /users/{id}/login" for gin's
//     "/users/:id/login") guards those methods too: when no route is
//     written as the template, the first added that ServeMux matches the
//     request's path to with one of them does.
//   - A route written in another syntax than the template a router served
//     the request by ("GET /users/{id}" for gin's "/users/:id", "/admin/"
//     for "/admin/*p") is found by that template, matched by ServeMux
//     with each parameter a wildcard. The request's path is matched first
//     (a route more specific than the template, a subtree's handler that
//     routes further; under a catch-all template, charged with the
//     template's route, all or nothing) only while, cleaned as ServeMux
//     cleans it, it stays under the template's literal start: routers serve paths as they
//     come ("/items/." reaches "/items/:id", "/admin/../healthz" reaches
//     "/admin/*p") that ServeMux would clean into another route's path,
//     or none. A path ServeMux would clean ("/admin/./public"), or that
//     or whose variant (see below) names a route of its own, under a
//     router's catch-all template ("/admin/*", even one written as a
//     route: "GET /files/*") is charged on that route and the template's,
//     all or nothing: the catch-all's handler serves it as it comes, a
//     handler mounted there routes it further (a ServeMux on chi's
//     "/legacy/*" serving "POST /legacy/login"), and a rewriting
//     middleware after the limiter (chi's CleanPath, StripSlashes) routes
//     it to the variant's.
//   - HEAD is limited like GET, in the GET route's buckets, unless a HEAD
//     route of its own was added: ServeMux, chi's middleware.GetHead and
//     routes registered for both methods all serve HEAD with the GET
//     handler.
//   - A pattern may be written in a router's template syntax (gin's and
//     echo's ":id" and "*filepath", chi's "{id:[0-9]+}"): looked up as
//     written by the template, it is matched by ServeMux with each
//     parameter a wildcard, so that a request whose template is not known
//     (a limiter mounted before the router routes) is limited all the same.
//     gin's and echo's escaped colon ("/v1/books\:batchGet") is a colon
//     to them: such a route limits "/v1/books:batchGet" before the router
//     too, and is found by gin's template, which drops the backslash
//     (a route written as that template is refused beside it); to
//     ServeMux and chi it stays a backslash and a colon.
//     A parameter or catch-all after text in a segment (gin's and echo's
//     "/v:version/x", echo's "/static*") is a literal to ServeMux
//     ("/v1/books:batchGet"): when neither a template nor the
//     application's pattern for one path names the handler, a request the
//     router would serve by that template ("/v2/x", "/static/a.css") is
//     charged on its route and on the route ServeMux matches (else the
//     default), all or nothing. The trade-off: behind a handler that hides
//     its ServeMux from the middleware, "POST /v1/books:list" is counted
//     against "POST /v1/books:batchGet" too. chi's braces beside text
//     ("/v{version}/x", "/f/{name}.{ext}") are matched so too, not as a
//     wildcard of the whole segment, which would take "/abc/x" from the
//     route chi serves it by, or from the default; a template in other
//     names or syntax ("/v{ver}/x", "/v:ver/x") finds such a route by its
//     shape, charged with any route the path finds, and a path under a
//     router's catch-all template ("/legacy/*", whose handler may route
//     further) is charged on the glob routes it matches too. Of several
//     glob routes matching a request, the one gin and echo prefer is
//     charged ("/static/v:x" before "/static*", but "/a:y" for "/ab"
//     beside "/ab:x", whose parameter would be empty at the end; echo's
//     parameter ending a route may take the rest of the path: "/v1/a/b"
//     is charged on "/v:version"), and all of those neither
//     is preferred to (one shape for another host or method, chi's
//     "/u{id:[0-9]+}" beside "/u{name}", "/f/{name}.png" beside
//     "/f/{name}.{ext}"), all or nothing. Without a template, a route
//     ending in a gin or echo parameter ("GET /users/:id") is charged too
//     for a deeper path that no pattern matches itself ("/users/1/2"),
//     which echo serves by it when no route continues below, with the
//     default, all or nothing, whatever the rest holds ("/users//1",
//     "/users/./x", "/users/me/x" beside "GET /users/me", which echo
//     leaves for the parameter). Without a template, a path read as gin,
//     echo and chi read it, uncleaned (a dot or empty segment is a
//     parameter's value to them: "/users/../x" reaches "/users/:id/x")
//     and, for gin, decoded ("/users/a%2Fb/x" is "/users/a/b/x"), is
//     charged on the route that reading matches too. A request that would be
//     charged on more routes than a charge holds (several such routes
//     beside a path variant's, for a method in both cases) is refused,
//     never charged on fewer: Select returns an error wrapping
//     core.ErrInvalidConfig, which the middleware reports to OnError and
//     answers as a request it cannot key (403, or Options.NoKey).
//   - Without a template, a request is matched as ServeMux matches it,
//     which cleans paths ("//x", "/a/../x"), decodes percent-encoding and
//     redirects "/x" to "/x/". A request that matches no pattern that way,
//     or only a subtree pattern holding its path ("/" or "/api/" for
//     "/api/x"), is matched again with its path cleaned, with its trailing
//     slash added or removed and in lower case, because other routers (chi
//     with StripSlashes or CleanPath, routers matching without case) serve
//     those variants with the handler of the route: the best fit wins (a
//     pattern matching the path itself, then the longest), and only if none
//     matches does the request get the default limiter. A variant is
//     tried only where the handler the request reaches may serve it: under
//     the literal start of the pattern or template that serves it ("/admin/"
//     for "/admin/" and "/admin/*path"), so that an encoded dot segment
//     ("/admin/%2E%2E/healthz", served by the "/admin/" handler) does not
//     move the request to another route's bucket. Under that start, the
//     handler may serve the variant's route (a router within it that
//     cleans paths or strips slashes) or read the path as it came (a file
//     server, an "/admin/" handler of its own, which "/admin/PUBLIC",
//     "/admin/public/" or "/admin/x/%2E%2E/public" reaches): a request
//     whose route a variant finds is charged on that route and on the
//     route of the pattern serving it (the subtree's that holds its path,
//     else the default), all or nothing, each by its own limits in its
//     own buckets, so that no spelling limits it more loosely than the
//     handler it reaches. The trade-off: a plain ServeMux serves "/login/"
//     with a "/" handler, yet it is counted against "POST /login" as well,
//     so that no normalising router lets it escape the login limit. For a
//     general limit prefer NewRoutes' default to a "/" pattern. Where an
//     adapter knows that the handler of its template serves variants of
//     the path too (chilimit: a sub-router's mount point, "/b" and "/b/"
//     alike; a route behind a sub-router's middleware, which may rewrite
//     the path after the limiter), a request is charged on the route a
//     variant names as well, all or nothing, even when its path names one.
//   - A pattern naming a host ("api.example.com/login") is matched as
//     ServeMux matches it, then, when that fails, with the request's host in
//     lower case and without a trailing dot: the same host to DNS, and to
//     routers that ignore the host. A request without a host (HTTP/1.0)
//     matches no such pattern. Such a route limits the requests naming
//     its host alone, and the Host header is the client's to choose: when
//     the application serves the path for every host (its handler's
//     pattern names none), a request naming another host reaches that
//     handler limited by the default only. Add the path without the host
//     too, or route by host in the application as well.
//   - CORS preflights: see [Preflight].
//   - Method overrides (X-HTTP-Method-Override and the like) are the
//     router's business: mount such middleware before the limiter, so that
//     the limiter sees the method the request is routed by.
type Routes struct {
	mux       *http.ServeMux
	byPattern map[string]*muxEntry     // by canonical pattern, as ServeMux reports it
	byKey     map[routeKey]*route      // by method ("" for any) and the rest of the pattern
	byPath    map[string][]methodRoute // the routes of a method added for each rest of a pattern, in order
	patterns  []string                 // canonical, in the order added
	def       Limiter
	methods   map[string]bool       // the methods routes were added for
	limiters  map[Limiter]int       // how many scopes use each limiter
	groups    map[string]namedGroup // the scopes named so far, by Add and Share
	hosts     bool                  // whether a pattern names a host
	globs     []globRoute           // the routes whose template ServeMux reads otherwise than gin and echo, in the order added
	tails     []tailShape           // the ServeMux patterns ending in a gin or echo parameter, by their segments (see tailSegments)
	tailMux   *http.ServeMux        // those patterns alone (see tailRoutes)
	depth     int                   // the most slashes in the path of a ServeMux pattern matching one path, not a subtree (see literalRoute)
	err       error                 // a bad argument of NewRoutes, reported by Add, Share and NewSelect
	// mu orders Add and Share with the first request, which sets serving:
	// after it, the table is read without a lock, and no longer changed.
	mu      sync.Mutex
	serving atomic.Bool
}

type routeKey struct{ method, path string }

// namedGroup is a scope named by Add (its pattern) or Share, with its
// limiter.
type namedGroup struct {
	lim   Limiter
	added bool // named by Add
}

// methodRoute is a route added for a method.
type methodRoute struct {
	method string
	rte    *route
}

// muxEntry is a pattern registered in the ServeMux.
type muxEntry struct {
	rte *route
	// path is the pattern's path, and subtree whether it matches the paths
	// below it too ("/api/", "/files/{p...}").
	path    string
	subtree bool
	// tail: the segments of a pattern ending in a gin or echo parameter
	// ("/users/:id": 2; see tailSegments), else 0.
	tail int
}

// match is a route found by ServeMux matching, and how well it fits: a
// route matched exactly beats one whose subtree holds the path, and a
// longer pattern beats a shorter one.
type match struct {
	e    *muxEntry
	weak bool // matched as a subtree holding the path, not the path itself
}

func (m match) better(o match) bool {
	switch {
	case m.e == nil:
		return false
	case o.e == nil:
		return true
	case m.weak != o.weak:
		return !m.weak
	}
	return len(m.e.path) > len(o.e.path)
}

type route struct {
	lim   Limiter
	scope string
	order int // the routes added before it (by earlier calls of Add and Share)
	// alone, set once Routes serves (see serves), says that lim serves
	// this route alone: its keys need no scope.
	alone bool
}

// NewRoutes returns routes that give requests matching no route to def, or
// leave them unlimited when def is nil. A def that is a typed nil or a zero
// limiter is reported by every later Add or Share and by [NewSelect], and
// so is a process whose ServeMux runs in Go 1.21's mode (GODEBUG
// httpmuxgo121=1), in which no pattern would match as Routes needs.
func NewRoutes(def Limiter) *Routes {
	rt := &Routes{mux: http.NewServeMux(), tailMux: http.NewServeMux(), byPattern: map[string]*muxEntry{}, byKey: map[routeKey]*route{}, byPath: map[string][]methodRoute{}, limiters: map[Limiter]int{}}
	if !muxPatterns() {
		rt.err = errMux121
		return rt
	}
	if def != nil {
		if err := checkLimiter("NewRoutes default", def); err != nil {
			rt.err = err
			return rt
		}
		rt.def = def
	}
	return rt
}

// Add limits the requests matching pattern with l. A pattern ServeMux
// accepts but that no request a client sends reaches as written is refused
// (a host in upper case, with a port or a scheme, a method list such as
// "GET|POST", a '?' or '#' in the path, an invisible character): its limit
// would limit nothing. An error is sticky, as
// [Routes.Share]'s: every later Add and Share, and [NewSelect], report the
// first one, so checking NewSelect's error is enough. Once Routes serves
// (see [Routes]), Add and Share refuse, and that error is not sticky.
func (rt *Routes) Add(pattern string, l Limiter) error {
	return rt.share(pattern, l, true, pattern)
}

// Share limits the requests matching any of patterns with l, in buckets
// they share under the name group. A group name may not be empty, contain
// a NUL byte (the middleware keeps preflight buckets apart with it), name
// a group of another limiter, or be a pattern given to Add (whose route's
// buckets it would share); Share again with a group's name and limiter
// adds patterns to it.
//
// An error is sticky: every later Add and Share, and [NewSelect], report
// it, so that a route whose error was ignored never goes unlimited.
func (rt *Routes) Share(group string, l Limiter, patterns ...string) error {
	return rt.share(group, l, false, patterns...)
}

// share is Share, and Add when added.
func (rt *Routes) share(name string, l Limiter, added bool, patterns ...string) (err error) {
	group := name
	if rt == nil {
		return fmt.Errorf("middleware: Share on nil *Routes: %w", core.ErrInvalidConfig)
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.err != nil {
		return rt.err
	}
	if rt.mux == nil {
		return errZeroRoutes
	}
	if rt.serving.Load() {
		// Not sticky: the table serves on as it is.
		return fmt.Errorf("middleware: route group %q: Routes serves already (add every route before serving): %w", group, core.ErrInvalidConfig)
	}
	defer func() {
		if err != nil {
			rt.err = err
		}
	}()
	if len(patterns) == 0 {
		return fmt.Errorf("middleware: route group %q: no pattern: %w", group, core.ErrInvalidConfig)
	}
	if err := checkLimiter(fmt.Sprintf("route group %q", group), l); err != nil {
		return err
	}
	if strings.IndexByte(group, 0) >= 0 {
		return fmt.Errorf("middleware: route group %q contains a NUL byte: %w", group, core.ErrInvalidConfig)
	}
	if group == "" {
		// The default's scope: the group would share its buckets.
		return fmt.Errorf("middleware: empty route group name: %w", core.ErrInvalidConfig)
	}
	if !same.Comparable(l) {
		return fmt.Errorf("middleware: route group %q: limiter %T is not comparable: %w", group, l, core.ErrInvalidConfig)
	}
	if g, ok := rt.groups[group]; ok && (added || g.added || g.lim != l) {
		return groupClash(group, added, g.added)
	}
	if rt.groups == nil {
		rt.groups = map[string]namedGroup{}
	}
	rt.groups[group] = namedGroup{lim: l, added: added}
	rte := &route{lim: l, scope: group, order: len(rt.patterns)}
	for _, p := range patterns {
		// A pattern ServeMux accepts may still match no request a client
		// sends (an upper-case host, "GET|POST", a query): refused, never
		// a route that limits nothing.
		if col, err := routepath.Check(p); err != nil {
			return fmt.Errorf("middleware: route %q, at byte %d: %w: %w", p, col, err, core.ErrInvalidConfig)
		}
		key, canon, err := parsePattern(p)
		if err != nil {
			return err
		}
		if _, dup := rt.byKey[key]; dup {
			return fmt.Errorf("middleware: route %q added twice: %w", p, core.ErrInvalidConfig)
		}
		// gin's template drops the backslash of an escaped colon
		// ("/v1/books:batchGet" for "/v1/books\:batchGet"): the route is
		// found by that template too, unless a route is written so.
		alias, escaped := routepath.Unescape(key.path)
		aliasKey := routeKey{key.method, alias}
		if _, dup := rt.byKey[aliasKey]; escaped && dup {
			return fmt.Errorf("middleware: route %q: gin reports its template as %q, a route added already: %w", p, alias, core.ErrInvalidConfig)
		}
		// ServeMux matches the template in its own syntax, so that a
		// request whose template is unknown (a limiter mounted where the
		// router has not routed yet) is still matched to the route.
		muxKey := routeKey{key.method, routepath.MuxPath(key.path)}
		muxCanon := muxKey.path
		if muxKey.method != "" {
			muxCanon = muxKey.method + " " + muxKey.path
		}
		glob, globbed := routepath.NewGlob(key.path)
		mux := rt.mux
		if globbed && glob.Widened() {
			mux = http.NewServeMux() // checked there, not registered (see below)
		}
		switch err := register(mux, p, muxCanon); {
		case globbed && glob.Widened():
			// chi's braces beside text ("/v{version}/x"): ServeMux would
			// match any segment there ("/abc/x"), taking requests the
			// router serves by other routes from their limits, or the
			// default's. Checked, not registered: the glob matches it.
			if err != nil {
				return err
			}
		case err == nil:
			path := muxKey.path
			if i := strings.IndexByte(path, '/'); i > 0 {
				path = path[i:] // drop the host
				rt.hosts = true
			}
			tail := tailSegments(key.path)
			e := &muxEntry{rte: rte, path: path, subtree: strings.HasSuffix(path, "/") || strings.HasSuffix(path, "...}"), tail: tail}
			rt.byPattern[muxCanon] = e
			if !e.subtree {
				rt.depth = max(rt.depth, strings.Count(path, "/"))
			}
			rt.addTail(muxCanon, path, tail)
		case muxCanon == canon:
			return err
		default:
			// Only a clash with a route added before (one route in two
			// syntaxes) may leave the template to its lookup: a pattern
			// ServeMux refuses on its own (a '{' in the host, "{$}" before
			// the end, an unclosed brace) would match no request without
			// its template.
			if err := register(http.NewServeMux(), p, muxCanon); err != nil {
				return err
			}
		}
		// A template that ServeMux matches like one added before ("/users/:id"
		// after "/users/{id}", for another router) is found by its template;
		// ServeMux matches its requests to the route added first.
		rt.patterns = append(rt.patterns, canon)
		rt.byKey[key] = rte
		if escaped {
			rt.byKey[aliasKey] = rte
		}
		if globbed {
			rt.globs = append(rt.globs, globRoute{method: key.method, glob: glob, rte: rte})
		}
		if key.method != "" {
			rt.byPath[key.path] = append(rt.byPath[key.path], methodRoute{key.method, rte})
			if escaped {
				rt.byPath[alias] = append(rt.byPath[alias], methodRoute{key.method, rte})
			}
			if rt.methods == nil {
				rt.methods = map[string]bool{}
			}
			rt.methods[key.method] = true
		}
	}
	rt.limiters[l]++
	return nil
}

// parsePattern splits a pattern into its method, upper-cased, and the rest,
// and returns the canonical pattern: "METHOD rest", or rest alone.
func parsePattern(p string) (routeKey, string, error) {
	method, rest, _ := routepath.Split(p)
	method = routepath.Method(method)
	if rest == "" {
		return routeKey{}, "", fmt.Errorf("middleware: route %q has no path: %w", p, core.ErrInvalidConfig)
	}
	if method == "" {
		return routeKey{path: rest}, rest, nil
	}
	return routeKey{method, rest}, method + " " + rest, nil
}

// register adds pattern, the ServeMux form of the route p, to mux, turning
// ServeMux's panic on an invalid or conflicting pattern into an error.
func register(mux *http.ServeMux, p, pattern string) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("middleware: route %q: %v: %w", p, v, core.ErrInvalidConfig)
		}
	}()
	mux.Handle(pattern, http.NotFoundHandler())
	return nil
}

// Select picks the limiter of the route r reaches (see [Routes] for how
// variants of method and path are matched). With a route template from an
// adapter it looks up "METHOD template", then "GET template" for HEAD, then
// "template", then the first route added at template for a method r.Pattern
// names as reaching the same handler; without one, or when the template
// names no route, it matches r against the patterns as a ServeMux would
// (with r's method, then with those r.Pattern names).
//
// A request whose route is found by a variant of its path or host (see
// [Routes]) rather than by the pattern that serves it is charged on
// several routes, all or nothing: the variant's and that of the pattern,
// else the default, for its method in canonical form and, when it is not
// written so, as written; each by its own limits, in its own buckets,
// each bucket once. The Limiter returned then decides them all, under
// their scopes, for the key it is given, and its Refund gives them all
// back. A Selector wrapping Routes that builds its scope (or, a
// KeySelector, its key) from the one Routes gives, in whatever way
// ("tenant/" + scope, a length-prefixed join, a hash), is then asked
// again by the middleware for each of those routes, Routes answering that
// route's limiter and scope alone: each route is charged under the scope
// the Selector builds from that route's, as the route's own requests are.
// One of them failing (a store down), the Limiter returns the error with
// the others' admission, which the caller gives back unless it serves the
// request all the same.
func (rt *Routes) Select(r *http.Request, template string) (Limiter, string, error) {
	rt.serves()
	if err := rt.validate(); err != nil {
		return nil, "", err
	}
	if pt, ok := partAsked(r, rt); ok {
		return pt.Lim, pt.Scope, nil
	}
	return rt.limiter(rt.choose(r, template))
}

// choose returns the routes r is charged on: what it reaches by its
// method in canonical form, and, for a method not written canonically,
// by its method as written. ServeMux matches a pattern's method as
// written: "get /users/1" is not served by "GET /users/{id}" but by a
// pattern without a method ("/", a proxy or a catch-all), while a router
// matching methods without case serves it as GET; both are charged, each
// with the route a variant of its path names (see [Routes.Select]).
func (rt *Routes) choose(r *http.Request, template string) charge {
	method := routepath.Method(r.Method)
	c := rt.find(r, method, template)
	ch := charge{rte: c.rte}
	if c.variant {
		ch.add(c.served)
	}
	if served, anywhere := routepath.VariantsServed(r); template != "" && r.URL != nil && served {
		// The adapter says the handler of the template serves the
		// variants of the path too (chi's mount point with and without
		// its slash, a rewriting middleware after the limiter): the
		// route a variant names is charged with it.
		if rte := rt.servedVariant(r, method, template, anywhere); rte != nil {
			ch.add(rte)
		}
		// And the route the path itself names: the template may name the
		// variant's ("/b" for "/b/", both served by a sub-router's "/"),
		// which the path's own ("GET /b/", stricter) is not.
		if rte := rt.servedPath(r, method, template); rte != nil {
			ch.add(rte)
		}
	}
	if method != r.Method && template == "" {
		// ServeMux matches a pattern's method as written: the routes r
		// reaches so, without a template (a router's own method matching
		// decides with one).
		raw := rt.find(r, r.Method, template)
		ch.add(raw.rte)
		if raw.variant {
			ch.add(raw.served)
		}
	}
	// The glob routes last: ch has room for them (see charge.add).
	switch {
	case template == "":
		// A gin or echo template with text before a parameter in a
		// segment ("/v:version/x"), for a router not known here.
		// gin, echo and chi take a dot or empty segment for a
		// parameter's value, which ServeMux cleans away.
		lit := rt.literalRoute(r, method)
		if lit != nil {
			ch.add(lit)
		}
		rt.globsUnrouted(&ch, r, method)
		// echo's parameter ending a route takes the rest of the path.
		rt.tailRoutes(&ch, r, method, lit != nil)
	default:
		// The router's template has text and a parameter in a segment,
		// written otherwise in the route ("/v{ver}/x" for "/v{version}/x").
		rt.globTemplate(&ch, r, method, template)
		if r.URL != nil && len(rt.globs) > 0 && catchAllTemplate(template) {
			// A catch-all's handler may route the path further (a
			// router mounted at chi's "/legacy/*"), by a glob route.
			rt.globPath(&ch, r, method)
		}
	}
	return ch
}

// charge is the routes a request is charged on, all or nothing (nil: the
// default): rte, the route it reaches by its method in canonical form,
// and the others its method and path reach too (see [Routes.Select]),
// each once.
type charge struct {
	rte    *route
	n      int
	others [both.MaxParts - 1]*route
	// over says that a glob route found no room in others (see add): the
	// request is refused rather than left uncharged on it.
	over bool
}

// add charges rte too, unless it is charged already. others holds every
// route choose charges but its glob routes, which it adds last: a glob
// route beyond its room (several glob routes of one rank matching a
// request charged on a variant's routes for its method in both cases
// too) sets over instead, which refuses the request (see limiter).
func (ch *charge) add(rte *route) {
	switch {
	case rte == ch.rte || slices.Contains(ch.others[:ch.n], rte):
	case ch.n == len(ch.others):
		ch.over = true
	default:
		ch.others[ch.n] = rte
		ch.n++
	}
}

// own makes rte ch's route when ch charges none yet, not even the
// default's, and charges it too otherwise.
func (ch *charge) own(rte *route) {
	if ch.rte == nil && ch.n == 0 {
		ch.rte = rte
		return
	}
	ch.add(rte)
}

// limiter returns the limiter and scope that decide ch: the route's, or,
// when ch charges other routes too, a both.Pair charging each (the
// default for nil) by its own limits in its own buckets, but an unlimited
// one, and a bucket once.
func (rt *Routes) limiter(ch charge) (Limiter, string, error) {
	if ch.over {
		return nil, "", errTooManyRoutes
	}
	l, s, err := rt.pick(ch.rte)
	if ch.n == 0 || err != nil {
		return l, s, err
	}
	var parts [both.MaxParts]both.Part
	for i, o := range ch.others[:ch.n] {
		parts[i].Lim, parts[i].Scope, _ = rt.pick(o)
	}
	parts[ch.n] = both.Part{Lim: l, Scope: s}
	l, s = both.Of(parts[:ch.n+1]...)
	if p, ok := l.(*both.Pair); ok {
		p.SetOrigin(rt)
		s = partsScope
	}
	return l, s, nil
}

// choice is the route a request reaches (nil: the default's), and, when
// it was found by a variant of the request's path or host, the route of
// the pattern that serves it (nil: the default's).
type choice struct {
	rte, served *route
	variant     bool
}

// ownRoute returns the limiter of the route r reaches by its own method, if
// it reaches one: for a preflight, an OPTIONS route or a route of every
// method. A request that no route names but that the application's pattern
// (r.Pattern) serves with a handler by its own method gets the default
// limiter, as it would without its preflight fields; without a default it
// reaches no route (the Preflight mode then limits it like the request it
// announces, at least). A request reaching more routes by its own method
// than a charge holds is refused (errTooManyRoutes), not limited like the
// request it announces.
func (rt *Routes) ownRoute(r *http.Request, template string) (Limiter, string, bool, error) {
	rt.serves()
	if rt.validate() != nil {
		return nil, "", false, nil
	}
	method := routepath.Method(r.Method)
	c := rt.choose(r, template)
	if c.over {
		return nil, "", false, errTooManyRoutes
	}
	if c.rte == nil && (rt.def == nil || !servesMethod(r.Pattern, method)) {
		return nil, "", false, nil
	}
	l, s, err := rt.limiter(c)
	if err != nil {
		return nil, "", false, nil
	}
	if s == partsScope {
		s = "" // the parts' scopes as they are: Routes is the Selector
	}
	return l, s, true, nil
}

// serves marks rt as serving, at its first request: Add and Share refuse
// from then on, and the table is read without a lock.
func (rt *Routes) serves() {
	if rt.serving.Load() {
		return
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.serving.Load() {
		return
	}
	// The table is final: what each request would ask of it is set once
	// (before serving is, which publishes it).
	for _, rte := range rt.byKey {
		rte.alone = rt.limiters[rte.lim] == 1 && !same.Is(rte.lim, rt.def)
	}
	rt.serving.Store(true)
}

func (rt *Routes) validate() error {
	if rt.err == nil && rt.mux == nil {
		return errZeroRoutes
	}
	return rt.err
}

// errZeroRoutes refuses a zero Routes, made without NewRoutes: it has no
// ServeMux to match requests with.
// groupClash is the error of a second use of the name group, whose routes
// would share the first's buckets: by Add (added) or Share, the first by
// Add (before) or Share, each said as the caller wrote it.
func groupClash(group string, added, before bool) error {
	switch {
	case added && before:
		return fmt.Errorf("middleware: route %q added twice: give each pattern to Add once: %w", group, core.ErrInvalidConfig)
	case added:
		return fmt.Errorf("middleware: route %q: %q names a Share group, whose buckets the route would share: %w", group, group, core.ErrInvalidConfig)
	case before:
		return fmt.Errorf("middleware: route group %q: %q is a route given to Add, whose buckets the group would share: name the group otherwise: %w", group, group, core.ErrInvalidConfig)
	}
	return fmt.Errorf("middleware: route group %q named twice for another limiter: the two would share buckets: name one otherwise: %w", group, core.ErrInvalidConfig)
}

// errTooManyRoutes refuses a request that more routes would be charged on
// than a both.Pair holds: several glob routes of one rank (see
// Routes.globPath) beside a variant's routes, for its method in canonical
// form and as written. Refused, not charged on fewer.
var errTooManyRoutes = fmt.Errorf("middleware: a request matches more routes than are charged at once (%d): several routes with text and a parameter in one segment overlap: %w", both.MaxParts, core.ErrInvalidConfig)

var errZeroRoutes = fmt.Errorf("middleware: zero Routes, not made by NewRoutes: %w", core.ErrInvalidConfig)

// pick returns the limiter and scope of rte, or the default for nil.
func (rt *Routes) pick(rte *route) (Limiter, string, error) {
	if rte == nil {
		if rt.def == nil {
			return nil, "", nil
		}
		return rt.def, "", nil
	}
	if rte.alone {
		return rte.lim, "", nil
	}
	return rte.lim, rte.scope, nil
}

// find returns the route a request with method (canonical) reaches (nil
// for none), and whether a variant of its path or host found it.
func (rt *Routes) find(r *http.Request, method, template string) choice {
	if template == "" && r.Pattern != "" {
		if rte := rt.appRoute(r.Pattern, method); rte != nil {
			return choice{rte: rte}
		}
	}
	if template != "" {
		if rte := rt.templateRoute(r, method, template); rte != nil {
			if v := rt.pastCatchAll(r, method, template, rte); v != nil {
				return choice{rte: v, served: rte, variant: true}
			}
			return choice{rte: rte}
		}
		// The template names no route (a pattern written in ServeMux's
		// syntax for a gin route, a sub-router's mount point): match the
		// request itself, so that no route is unlimited for its spelling.
	}
	if r.URL == nil {
		return choice{}
	}
	var buf http.Request
	req, within := asServed(r, method, template, &buf)
	// r's path, as ServeMux matches it by r's method and by the others
	// (which clean it; a CONNECT's is not), is a guide only while it stays
	// where the handler r reaches serves (see servedPrefix): the route it
	// matches there may be the one a handler routing further (a
	// subtree's) serves it with, or one more specific than the template.
	// A router serves r's path as it comes ("/admin/./public",
	// "/admin//public" reach chi's "/admin/*"), where ServeMux would clean
	// it, and redirect: the route the cleaned path names is then a
	// variant's (see variants), charged with the template's, not instead.
	cleaned := template != "" && req.Method != http.MethodConnect && uncleanPath(req.URL)
	var best match
	if !cleaned && staysWithin(req.URL, req.Method, within) {
		best = rt.muxMatch(req)
		if best.e != nil && !best.weak {
			return rt.underCatchAll(req, template, best.route())
		}
	}
	t, byTemplate := templateRequest(req, template)
	if byTemplate {
		// The router served r by template: a route written in another
		// syntax at the template ("GET /users/{id}" for gin's
		// "/users/:id", "/admin/" for "/admin/*p") is matched by the
		// template itself, as ServeMux matches it, where r's path,
		// which the router may have served as it came ("/items/.",
		// "/admin/../healthz"), ServeMux would clean into another
		// route's path or none.
		if m := rt.muxMatch(t); m.better(best) {
			best = m
		}
		if best.e != nil && !best.weak {
			return choice{rte: best.route()}
		}
	}
	if !cleaned && staysWithin(req.URL, "", within) {
		if template != "" {
			// A route written in another syntax than the template ("POST
			// /users/{id}/login" for gin's "/users/:id/login") guards the
			// handler the methods r.Pattern names reach as surely.
			if rte := rt.sharedMuxRoute(req, method, template); rte != nil {
				return rt.underCatchAll(req, template, rte)
			}
		} else if path, ok := oneHandlerPath(r.Pattern); ok {
			// The application's handler serves every method at one path (a
			// pattern without a method), and no route is written as its
			// pattern ("POST /users/{user}/login" for "/users/{id}/login", a
			// route with or without the pattern's host): a route of another
			// method at the same path guards it as surely.
			if rte := rt.otherMethodRoute(req, method, path); rte != nil {
				return choice{rte: rte}
			}
		}
	}
	if byTemplate {
		if rte := rt.sharedMuxRoute(t, method, template); rte != nil {
			return choice{rte: rte}
		}
	}
	// No pattern matches the path itself as ServeMux routes it (at most a
	// subtree holds it): try the variants other routers serve with the
	// handler of a route, and keep the best fit, among those the handler
	// r reaches can serve. That handler may serve the variant's route (a
	// router within it that cleans paths or strips slashes) or read the
	// path as it came (a file server, an "/admin/" handler of its own):
	// a route found so is charged with the subtree's (served), so that no
	// spelling of the client's choice limits r more loosely than the
	// route of the pattern serving it.
	served := best
	best = rt.variants(req, best, within)
	if template != "" && (best.e == nil || best.weak) {
		// A route of another method reaching the handler (r.Pattern's
		// list), at a variant of the path: a router behind CleanPath or
		// StripSlashes serves "/api//secret" as "/api/secret", where
		// "POST /api/secret" guards the catch-all's handler of every
		// method for a GET as surely as at the path itself.
		if rte := rt.sharedVariant(req, method, template, within); rte != nil {
			return choice{rte: rte, served: served.route(), variant: true}
		}
	}
	if rt.hosts && (best.e == nil || best.weak) {
		// A host-specific pattern: the host in another case or with a
		// trailing dot names the same host (routers that ignore the host
		// serve it with the route's handler).
		if h := canonicalHost(req.Host); h != req.Host {
			c := *req
			c.Host = h
			if t, ok := templateRequest(&c, template); ok {
				if m := rt.muxMatch(t); m.better(best) {
					best = m
				}
			}
			if m := rt.muxMatch(&c); staysWithin(c.URL, c.Method, within) && m.better(best) {
				best = m
			}
			best = rt.variants(&c, best, within)
		}
	}
	return choice{rte: best.route(), served: served.route(), variant: best.e != served.e}
}

// underCatchAll returns the choice of rte, the route r's path names
// under template, the router's: when template is a catch-all ("/api/*",
// "/files/*filepath"), whose handler the router served r with as its path
// came, and rte is not the route the template itself names (a subtree
// written in ServeMux's syntax, "/api/", else the default), r is charged
// on both, all or nothing. echo routes "/api/lo%67in" as it comes, and a
// PUT to "/api/login", to the catch-all of e.Any("/api/*", h) beside
// e.POST("/api/login", …): charged on "POST /api/login" alone, they
// reached the catch-all's handler past its limit. Which of the two
// handlers serves (the catch-all's may route further) is not known here.
func (rt *Routes) underCatchAll(r *http.Request, template string, rte *route) choice {
	if !catchAllTemplate(template) {
		return choice{rte: rte}
	}
	t, ok := templateRequest(r, template)
	if !ok {
		return choice{rte: rte}
	}
	served := rt.muxMatch(t).route()
	return choice{rte: rte, served: served, variant: served != rte}
}

// catchAllTemplate reports whether the router's template ends in a
// catch-all, whose handler serves every path below it as it comes:
// "/admin/*", "/files/*filepath", "/files/{p...}", and echo's and chi's
// "*" after text ("/legacy*"), which MuxPath leaves a literal.
func catchAllTemplate(template string) bool {
	return template != "" && (strings.HasSuffix(template, "*") || strings.HasSuffix(routepath.MuxPath(template), "...}"))
}

// uncleanPath reports whether ServeMux would clean u's path (its escaped
// form) before matching it: it holds an empty, "." or ".." segment.
func uncleanPath(u *url.URL) bool {
	p := u.EscapedPath()
	return p != "" && routepath.Clean(p) != p
}

// templateRoute returns the route written as template for r (see
// [Routes.Select]): "METHOD template", "GET template" for HEAD,
// "template", then the first route at template for a method r.Pattern
// names; nil for none.
func (rt *Routes) templateRoute(r *http.Request, method, template string) *route {
	if rte := rt.byKey[routeKey{method, template}]; rte != nil {
		return rte
	}
	if method == http.MethodHead {
		if rte := rt.byKey[routeKey{http.MethodGet, template}]; rte != nil {
			return rte
		}
	}
	if rte := rt.byKey[routeKey{path: template}]; rte != nil {
		return rte
	}
	return rt.sharedRoute(r, method, template)
}

// pastCatchAll returns the route that r's path, or a variant of it (see
// routepath.Variants: cleaned, its slash toggled, in lower case), names
// under the catch-all template ("/admin/*", "/files/*filepath") whose
// route, served, limits r, when it is another: the router serves the
// path as it comes to the catch-all's handler, which may read it as the
// variant (a file server on a case-insensitive disk), or a rewriting
// middleware after the limiter (chi's CleanPath, StripSlashes) may route
// it to the variant's handler; r is charged on both. nil for none, and
// for a template that is no catch-all, whose router has matched the path
// whole.
func (rt *Routes) pastCatchAll(r *http.Request, method, template string, served *route) *route {
	if r.URL == nil || !catchAllTemplate(template) {
		return nil
	}
	var buf http.Request
	req, within := asServed(r, method, template, &buf)
	var best match
	if staysWithin(req.URL, req.Method, within) {
		// The path itself, which the router has no route of its own for
		// (it would have routed there): a route of it guards the handler
		// the catch-all's routes it to (a mux mounted on chi's
		// "/legacy/*" serving "POST /legacy/login").
		if m := rt.muxMatch(req); !m.weak {
			best = m
		}
	}
	best = rt.variants(req, best, within)
	if best.e == nil || best.weak || best.e.rte == served {
		return nil
	}
	return best.e.rte
}

// asServed returns r with method, the canonical form of r's (r itself
// when it is that already, else a copy made in buf, which stays on the
// caller's stack), and the literal start of the path under which the
// handler r reaches by template or r.Pattern serves it (see
// servedPrefix): "" when r's path no longer starts there, rewritten after
// the pattern was matched (http.StripPrefix under an outer mux's "/api/"),
// as the pattern then says nothing of where the handler that runs serves
// it.
func asServed(r *http.Request, method, template string, buf *http.Request) (*http.Request, string) {
	req := r
	if method != r.Method {
		*buf = *r
		buf.Method = method
		req = buf
	}
	within := servedPrefix(r.Pattern, template)
	if !describes(req.URL, within) {
		within = ""
	}
	return req, within
}

// servedVariant returns the route that ServeMux matches a variant of r's
// path to (see routepath.Variants: the path itself, a subtree holding a
// variant, are none), under the literal start of template (see
// servedPrefix), or anywhere, with method (canonical); nil for none. An
// adapter asks for it (see routepath.ServeVariants) where the handler
// the router serves r with by template serves those variants too, and
// for anywhere (routepath.ServeRewritten) where a middleware after the
// limiter routes r by a variant of its whole path.
func (rt *Routes) servedVariant(r *http.Request, method, template string, anywhere bool) *route {
	var buf http.Request
	req, within := asServed(r, method, template, &buf)
	if anywhere {
		within = ""
	}
	best := rt.variants(req, match{}, within)
	if best.e == nil || best.weak {
		return nil
	}
	return best.e.rte
}

// servedPath returns the route that ServeMux matches r's path to, as it
// comes, with method (canonical), when it stays under the literal start
// of template (see servedPrefix) and ServeMux would not clean it (a
// cleaned path is a variant, see servedVariant); nil for none. An adapter
// asks for it with servedVariant (see routepath.ServeVariants): the
// template's route may be the one a variant of the path names.
func (rt *Routes) servedPath(r *http.Request, method, template string) *route {
	var buf http.Request
	req, within := asServed(r, method, template, &buf)
	if req.Method == http.MethodConnect || uncleanPath(req.URL) {
		return nil
	}
	if !staysWithin(req.URL, req.Method, within) {
		return nil
	}
	if m := rt.muxMatch(req); m.e != nil && !m.weak {
		return m.e.rte
	}
	return nil
}

// variants returns the best fit of best and the routes ServeMux matches
// the path variants of req to, of those variants that start with within
// (see servedPrefix).
func (rt *Routes) variants(req *http.Request, best match, within string) match {
	for c := range variantRequests(req, within) {
		if m := rt.muxMatch(c); m.better(best) {
			best = m
		}
	}
	return best
}

// variantRequests yields a copy of req for each path variant of its path
// that starts with within (see servedPrefix), the variant its path.
func variantRequests(req *http.Request, within string) iter.Seq[*http.Request] {
	return func(yield func(*http.Request) bool) {
		for _, p := range routepath.Variants(req.URL.Path) {
			if p == "" || !under(p, within, false) {
				continue
			}
			c := *req
			u := *req.URL
			u.Path, u.RawPath = p, ""
			c.URL = &u
			if !yield(&c) {
				return
			}
		}
	}
}

// sharedVariant returns the first route added of those sharedMuxRoute
// finds at the path variants of req that start with within; nil for
// none.
func (rt *Routes) sharedVariant(req *http.Request, method, template, within string) *route {
	if _, ok := sharedList(req.Pattern, method, template); !ok {
		return nil // none at any variant: r.Pattern is each one's
	}
	var best *route
	for c := range variantRequests(req, within) {
		if rte := rt.sharedMuxRoute(c, method, template); rte != nil && (best == nil || rte.order < best.order) {
			best = rte
		}
	}
	return best
}

// canonicalHost returns host ("name" or "name:port") with its name in
// lower case and without a trailing dot.
func canonicalHost(host string) string {
	name, port := host, ""
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.Contains(host[i:], "]") {
		name, port = host[:i], host[i:]
	}
	if len(name) > 2 && name[0] == '[' && name[len(name)-1] == ']' {
		// An IPv6 address, in its canonical form ("0:0::1" is "::1")
		// without a zone (which names the client's interface, not the
		// server), and without brackets when it has no port: ServeMux
		// drops them only with the port ("[::1]:8080" matched "::1/x",
		// "[::1]" did not).
		if a, err := netip.ParseAddr(name[1 : len(name)-1]); err == nil && a.Is6() {
			if name = a.WithZone("").String(); port != "" {
				name = "[" + name + "]"
			}
		}
	}
	return strings.TrimSuffix(strings.ToLower(name), ".") + port
}

// appRoute returns the route of the application's ServeMux pattern p,
// which serves the request (r.Pattern), if one was added: the same
// pattern, or, when p has no method (its handler serves every method), a
// route of the same path: the request's method's, GET's for HEAD, else the
// first added. nil when none matches p so, and for a pattern matching a
// subtree ("/api/", "/files/{p...}"), whose handler may route further (a
// mux mounted under a prefix): the request is then matched as without p.
func (rt *Routes) appRoute(p, method string) *route {
	key, _, err := parsePattern(p)
	if err != nil || strings.HasSuffix(key.path, "/") || strings.HasSuffix(key.path, "...}") {
		return nil
	}
	if rte := rt.byKey[key]; rte != nil || key.method != "" {
		return rte
	}
	if rte := rt.byKey[routeKey{method, key.path}]; rte != nil {
		return rte
	}
	if method == http.MethodHead {
		if rte := rt.byKey[routeKey{http.MethodGet, key.path}]; rte != nil {
			return rte
		}
	}
	if rs := rt.byPath[key.path]; len(rs) > 0 {
		return rs[0].rte
	}
	return nil
}

// sharedList returns the methods pattern (r.Pattern as an adapter sets
// it) names as reaching one handler at template, when they are several
// and method (HEAD by GET) is one of them.
func sharedList(pattern, method, template string) (string, bool) {
	list, path, ok := strings.Cut(pattern, " ")
	if !ok || path != template || !strings.Contains(list, ",") {
		return "", false
	}
	if !listed(list, method) && (method != http.MethodHead || !listed(list, http.MethodGet)) {
		return "", false
	}
	return list, true
}

// sharedRoute returns the route that guards the handler r reaches at
// template, as an adapter names the methods reaching that handler in
// r.Pattern ("PUT,POST /login"): the first added at template for one of
// them. nil when r.Pattern is no such list, or names another template, or
// not the request's method (canonical), nor GET for HEAD.
func (rt *Routes) sharedRoute(r *http.Request, method, template string) *route {
	list, ok := sharedList(r.Pattern, method, template)
	if !ok {
		return nil
	}
	for _, mr := range rt.byPath[template] {
		if listed(list, mr.method) {
			return mr.rte
		}
	}
	return nil
}

// sharedMuxRoute is sharedRoute for routes whose pattern is not written
// as template: the first added of those ServeMux matches r's path to (the
// path itself, not a subtree holding it) with one of the methods r.Pattern
// names as reaching the same handler.
func (rt *Routes) sharedMuxRoute(r *http.Request, method, template string) *route {
	list, ok := sharedList(r.Pattern, method, template)
	if !ok {
		return nil
	}
	return rt.firstByMethods(r, func(yield func(string) bool) {
		for list != "" {
			var m string
			m, list, _ = strings.Cut(list, ",")
			if m = routepath.Method(m); m != method && rt.methods[m] && !yield(m) {
				return
			}
		}
	}, nil)
}

// oneHandlerPath returns the path of p, the application's ServeMux pattern
// serving a request (r.Pattern), in the form of muxEntry.path (without
// the host, each wildcard named by its position), when p has no method and
// matches one path, not a subtree: its handler serves every method there.
func oneHandlerPath(p string) (string, bool) {
	key, _, err := parsePattern(p)
	if err != nil || key.method != "" || strings.HasSuffix(key.path, "/") || strings.HasSuffix(key.path, "...}") {
		return "", false
	}
	path := routepath.MuxPath(key.path)
	if i := strings.IndexByte(path, '/'); i > 0 {
		path = path[i:]
	}
	return path, true
}

// otherMethodRoute returns the first route added, for a method other than
// method (canonical), whose pattern has the path of the application's
// handler (path, as oneHandlerPath gives it) and that ServeMux matches r
// to by that method: the route guards the handler for every method. nil
// for none.
func (rt *Routes) otherMethodRoute(r *http.Request, method, path string) *route {
	return rt.firstByMethods(r, func(yield func(string) bool) {
		for m := range rt.methods {
			if m != method && !yield(m) {
				return
			}
		}
	}, func(e *muxEntry) bool { return e.path == path || e.path+"{$}" == path })
}

// firstByMethods returns the first route added of those ServeMux matches
// r's path to (the path itself, not a subtree holding it) with one of
// methods, and that keep (nil: all) accepts; nil for none.
func (rt *Routes) firstByMethods(r *http.Request, methods iter.Seq[string], keep func(*muxEntry) bool) *route {
	var best *route
	c := *r // one copy, its method set in turn
	for m := range methods {
		c.Method = m
		e := rt.muxMatch(&c)
		if e.e == nil || e.weak || keep != nil && !keep(e.e) {
			continue
		}
		if best == nil || e.e.rte.order < best.order {
			best = e.e.rte
		}
	}
	return best
}

// listed reports whether the comma-separated list of methods holds method
// (canonical), in any ASCII case.
func listed(list, method string) bool {
	for list != "" {
		var m string
		m, list, _ = strings.Cut(list, ",")
		if len(m) == len(method) && routepath.Method(m) == method {
			return true
		}
	}
	return false
}

func (m match) route() *route {
	if m.e == nil {
		return nil
	}
	return m.e.rte
}

// muxMatch returns the route ServeMux matches r to. For a request it would
// redirect (to a cleaned path or a subtree's slash), that is the route of
// the redirect's target.
func (rt *Routes) muxMatch(r *http.Request) match {
	_, pattern := rt.mux.Handler(r)
	if pattern == "" {
		return match{}
	}
	e := rt.byPattern[pattern]
	if e == nil && pattern != r.URL.Path && strings.HasPrefix(pattern, "/") {
		// ServeMux reports a trailing-slash redirect by the target's
		// path, not its pattern: match the target.
		c := *r
		u := *r.URL
		u.Path, u.RawPath = pattern, ""
		c.URL = &u
		if _, p := rt.mux.Handler(&c); p != pattern {
			e = rt.byPattern[p]
		}
	}
	if e == nil {
		return match{}
	}
	return match{e: e, weak: e.subtree && routepath.Clean(r.URL.Path) != e.path}
}

// Patterns returns the patterns added, in canonical form (the method upper
// case), for documentation and tests.
func (rt *Routes) Patterns() []string {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return slices.Clone(rt.patterns)
}
