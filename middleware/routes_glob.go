package middleware

import (
	"net"
	"net/http"
	"slices"
	"strings"

	"github.com/floodgate-go/floodgate/internal/routepath"
)

// globRoute is a route whose template has a parameter or catch-all after
// text inside a segment (gin's and echo's "/v:version/x", echo's
// "/static*"): ServeMux reads that segment as a literal, which matches
// none of the paths the router serves with the route's handler.
type globRoute struct {
	method string // canonical; "" for any
	glob   routepath.Glob
	rte    *route
}

// globsUnrouted charges on ch the glob routes r reaches by method
// (canonical) when the router serving r is not known: no template, and
// no application pattern naming one path (the middleware mounted before a
// gin engine or an echo, or on a ServeMux subtree holding one). The route
// ServeMux matches is charged with them, all or nothing, since the
// handler might be either: ServeMux serves "/v1/books:list" by its own
// pattern, never by "POST /v1/books:batchGet", which gin would read as
// "/v1/books" then a parameter.
func (rt *Routes) globsUnrouted(ch *charge, r *http.Request, method string) {
	if len(rt.globs) == 0 || r.URL == nil || r.Pattern != "" && !subtreePattern(r.Pattern) {
		return
	}
	rt.globPath(ch, r, method)
}

// globPath charges on ch the glob routes whose template matches r's path
// for method (canonical), read as a router may read it: decoded (gin) or
// as it came (echo), or a variant of it (see routepath.Variants) that a
// rewriting middleware between the limiter and the router may route.
// Each reading is served by its own glob routes (see globReading): a
// route matching a variant alone never takes the place of one matching
// the path as it came, which echo serves "/static/V1" by ("/static*",
// not "/static/v:x"), and a variant's route is charged though a route
// the path as it came matches outranks it: the router routing the
// variant serves it by the variant's ("/v1/products/../login", cleaned,
// by "/v:version/login", not "/v:version/products/"). One is not: a
// route ending in a slash that the variant reaches below that slash
// alone (see routepath.Glob.Below), which the path as it came reaches
// too and a route of that reading outranks there ("/v:version/", for
// "/v2/items" as "/v2/items/", beside "/v:version/items").
func (rt *Routes) globPath(ch *charge, r *http.Request, method string) {
	host := requestHost(r)
	var paths [6]string
	paths[0], paths[1] = r.URL.Path, r.URL.EscapedPath()
	v := routepath.Variants(r.URL.Path)
	copy(paths[2:], v[:])
	var direct [2]globSet // the routes of paths[0] and paths[1]
	for i, p := range paths {
		if p == "" || slices.Contains(paths[:i], p) {
			continue
		}
		sp := routepath.NewSegments(p)
		set, ok := rt.globReading(host, &sp, method)
		if !ok {
			ch.over = true // more than ch holds: refused (see charge.add)
			return
		}
		if i < 2 {
			direct[i] = set
		}
		for _, g := range set.all() {
			if i >= 2 && g.glob.Below(host, p) && outrankedAt(direct[:], paths[:2], host, g) {
				continue // below a slash, outranked by the path's own
			}
			ch.add(g.rte)
		}
	}
}

// outrankedAt reports whether g's route matches one of paths (for host)
// where a route of that path's glob routes (sets, one for each) outranks
// it.
func outrankedAt(sets []globSet, paths []string, host string, g *globRoute) bool {
	for i, p := range paths {
		if p != "" && sets[i].outranks(g) && g.glob.Match(host, p) {
			return true
		}
	}
	return false
}

// globSet is a few glob routes, each matching one reading of a path, and
// whether it matches it by an empty parameter at its end (weak: see
// routepath.Glob.MatchEnd), which outranks none. It holds more than a
// charge does (globScratch), so that routes a later one outranks do not
// fill it first.
type globSet struct {
	n    int
	g    [globScratch]*globRoute
	weak [globScratch]bool
}

// globScratch is how many glob routes of one reading of a path, none
// outranking another, globReading holds while it reads the table; more
// refuse the request, as do more than a charge holds once it has read it.
const globScratch = 16

func (s *globSet) all() []*globRoute { return s.g[:s.n] }

// add adds g, weak or not, unless s holds it, and reports false when s is
// full.
func (s *globSet) add(g *globRoute, weak bool) bool {
	switch {
	case slices.Contains(s.all(), g):
	case s.n == len(s.g):
		return false
	default:
		s.g[s.n], s.weak[s.n] = g, weak
		s.n++
	}
	return true
}

// outranks reports whether a glob route of s, but a weak one, outranks
// g's.
func (s *globSet) outranks(g *globRoute) bool {
	for i, b := range s.all() {
		if !s.weak[i] && b.glob.Outranks(g.glob) {
			return true
		}
	}
	return false
}

// globReading returns the glob routes whose template matches path (one
// reading of a request's, read once for them all; for host, as
// requestHost gives it) for method (canonical), and false
// when they are more than a charge holds, those a later one outranks
// not counted. Of several, those gin and echo
// may serve it by: one outranks another when, at the first segment where
// they differ, its text is longer, or a literal where the other has a
// parameter, or a parameter where the other has a catch-all (chi's braces,
// matched generously, outrank none: see routepath.Glob.Outranks), unless
// its parameter ending the path is empty there (gin and echo serve "/ab"
// by "/a:y", not "/ab:x"). Those that neither outranks (one shape for
// another host or method, chi's regexp beside a parameter) are all
// returned.
func (rt *Routes) globReading(host string, path *routepath.Segments, method string) (globSet, bool) {
	var best globSet
	for i := range rt.globs {
		g := &rt.globs[i]
		if !methodReaches(g.method, method) || best.outranks(g) {
			continue
		}
		ok, weak := g.glob.MatchSegments(host, path)
		if !ok {
			continue
		}
		k := 0
		for j, b := range best.all() {
			if weak || !g.glob.Outranks(b.glob) {
				best.g[k], best.weak[k] = b, best.weak[j]
				k++
			}
		}
		best.n = k
		if !best.add(g, weak) {
			return best, false
		}
	}
	return best, best.n <= len(charge{}.others)
}

// globTemplate charges on ch the glob routes written, in whatever names
// or syntax, as template, the router's, when no route is written as it:
// chi's "/v{ver}/x" is the route "GET /v{version}/x" or "GET
// /v:version/x". Such a route, whose ServeMux form would match any
// segment in place of its text and braces, is not in the ServeMux, which
// finds the routes of other templates written otherwise. Each route of
// that shape is charged that r reaches by method (canonical), or, when
// none, by a method r.Pattern names as reaching the same handler (see
// sharedRoute): the first added of those. With nothing else charged, the
// route is ch's own.
func (rt *Routes) globTemplate(ch *charge, r *http.Request, method, template string) {
	if len(rt.globs) == 0 || r.URL == nil || rt.templateRoute(r, method, template) != nil {
		return // (the lookup first: parsing the template allocates)
	}
	t, ok := routepath.NewGlob(template)
	if !ok {
		return
	}
	host := requestHost(r)
	found := false
	for i := range rt.globs {
		if g := &rt.globs[i]; methodReaches(g.method, method) && g.glob.Same(t, host) {
			ch.own(g.rte)
			found = true
		}
	}
	if found {
		return
	}
	if list, ok := sharedList(r.Pattern, method, template); ok {
		for i := range rt.globs {
			if g := &rt.globs[i]; g.method != "" && listed(list, g.method) && g.glob.Same(t, host) {
				ch.own(g.rte)
				return
			}
		}
	}
}

// methodReaches reports whether a route added for method m (canonical, ""
// for any) limits a request of method (canonical): HEAD is limited like
// GET.
func methodReaches(m, method string) bool {
	return m == "" || m == method || method == http.MethodHead && m == http.MethodGet
}

// requestHost returns r's host as a pattern names it: without its port,
// lower case, without a trailing dot.
func requestHost(r *http.Request) string {
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return canonicalHost(host)
}

// subtreePattern reports whether the application's ServeMux pattern p
// (r.Pattern) holds a subtree ("/api/", "/files/{p...}"), whose handler
// may route further.
func subtreePattern(p string) bool {
	key, _, err := parsePattern(p)
	return err == nil && (strings.HasSuffix(key.path, "/") || strings.HasSuffix(key.path, "...}"))
}
