package middleware

import (
	"net"
	"net/http"
	"net/url"
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

// globMatch returns the glob route r reaches by method (canonical) when
// the router serving r is not known: no template, and no application
// pattern naming one path (the middleware mounted before a gin engine or
// an echo, or on a ServeMux subtree holding one). The route ServeMux
// matches is charged with it, all or nothing, since the handler might be
// either: ServeMux serves "/v1/books:list" by its own pattern, never by
// "POST /v1/books:batchGet", which gin would read as "/v1/books" then a
// parameter. Of several glob routes matching, the one gin and echo would
// serve: at the first segment where they differ, the longer text, then a
// literal before a parameter before a catch-all; else the first added.
func (rt *Routes) globMatch(r *http.Request, method string) *route {
	if len(rt.globs) == 0 || r.URL == nil || r.Pattern != "" && !subtreePattern(r.Pattern) {
		return nil
	}
	host := requestHost(r)
	var best *globRoute
	for i := range rt.globs {
		g := &rt.globs[i]
		if !methodReaches(g.method, method) {
			continue
		}
		if best != nil && !g.glob.Outranks(best.glob) || !globPaths(r.URL, host, g.glob) {
			continue
		}
		best = g
	}
	if best == nil {
		return nil
	}
	return best.rte
}

// globPaths reports whether g matches u's path as a router may read it:
// decoded (gin) or as it came (echo), or a variant of it (see
// routepath.Variants) that a rewriting middleware between the limiter and
// the router may route.
func globPaths(u *url.URL, host string, g routepath.Glob) bool {
	if g.Match(host, u.Path) || g.Match(host, u.EscapedPath()) {
		return true
	}
	for _, v := range routepath.Variants(u.Path) {
		if v != "" && g.Match(host, v) {
			return true
		}
	}
	return false
}

// globTemplate returns the glob route written, in whatever names or
// syntax, as template, the router's, for r's method (canonical): chi's
// "/v{ver}/x" is the route "GET /v{version}/x" or "GET /v:version/x".
// Such a route, whose ServeMux form would match any segment in place of
// its text and braces, is not in the ServeMux, which finds the routes of
// other templates written otherwise.
func (rt *Routes) globTemplate(r *http.Request, method, template string) *route {
	if len(rt.globs) == 0 {
		return nil
	}
	t, ok := routepath.NewGlob(template)
	if !ok {
		return nil
	}
	var host string
	if r.URL != nil {
		host = requestHost(r)
	}
	for i := range rt.globs {
		g := &rt.globs[i]
		if methodReaches(g.method, method) && g.glob.Same(t, host) {
			return g.rte
		}
	}
	return nil
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
