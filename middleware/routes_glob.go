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

// addGlob keeps rte, added for key, among the glob routes when its
// template needs one (see routepath.NewGlob).
func (rt *Routes) addGlob(key routeKey, rte *route) {
	if g, ok := routepath.NewGlob(key.path); ok {
		rt.globs = append(rt.globs, globRoute{method: key.method, glob: g, rte: rte})
	}
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
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = canonicalHost(host)
	var best *globRoute
	for i := range rt.globs {
		g := &rt.globs[i]
		if g.method != "" && g.method != method && (method != http.MethodHead || g.method != http.MethodGet) {
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

// subtreePattern reports whether the application's ServeMux pattern p
// (r.Pattern) holds a subtree ("/api/", "/files/{p...}"), whose handler
// may route further.
func subtreePattern(p string) bool {
	key, _, err := parsePattern(p)
	return err == nil && (strings.HasSuffix(key.path, "/") || strings.HasSuffix(key.path, "...}"))
}
