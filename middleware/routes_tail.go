package middleware

import (
	"net/http"
	"net/url"
	"strings"
)

// tailSegments returns the segments of the path of pattern p (its host
// dropped) when it ends in a whole parameter of gin's and echo's syntax
// ("/users/:id": 2), whose handler echo serves deeper paths by when no
// route continues below it ("/users/1/2"); 0 for any other pattern.
func tailSegments(p string) int {
	if i := strings.IndexByte(p, '/'); i > 0 {
		p = p[i:]
	}
	last := p[strings.LastIndexByte(p, '/')+1:]
	if !strings.HasPrefix(last, ":") || strings.ContainsAny(last[1:], ":*{}") {
		return 0
	}
	return strings.Count(p, "/")
}

// addTail notes that the pattern p (canonical), whose path is path (its
// host dropped), of a route of n path segments (see tailSegments), was
// registered in the ServeMux, and registers it in tailMux too, with the
// others ending in a parameter. ServeMux took it, so tailMux, holding
// fewer, does.
func (rt *Routes) addTail(p, path string, n int) {
	if n == 0 {
		return
	}
	rt.tailMux.Handle(p, http.NotFoundHandler())
	rt.addTailShape(path, n)
}

// tailRoutes charges on ch the routes ending in a gin or echo parameter
// ("GET /users/:id") that echo serves r by when the router is not known
// (see globsUnrouted): echo's last parameter takes the rest of a path no
// route continues, whatever it holds ("/users/1/2", "/users//1",
// "/users/./x", "/users/me/x" beside a route "/users/me", which echo
// leaves for it), and gin and echo serve a dot segment there as a value
// ("/users/.."). Only a path that no pattern matches itself (none, or a
// subtree holding it) is tried, so that gin, which serves a deeper path
// by no route, costs an over-charge of its 404s alone: the path's first
// segments, one fewer than such a route's, matched by that route, and
// anything after them, the path read as it comes (see literalPath).
//
// literal says that the path, read as it comes, names a route of its
// own (see literalRoute), which is charged instead.
func (rt *Routes) tailRoutes(ch *charge, r *http.Request, method string, literal bool) {
	if literal || len(rt.tails) == 0 || r.URL == nil || r.Pattern != "" && !subtreePattern(r.Pattern) {
		return
	}
	esc := r.URL.EscapedPath()
	// A path ServeMux cleans ("/users/me/x/..") is matched as another
	// ("/users/me"), not itself: echo serves it as it comes.
	if m := rt.muxMatch(r); m.e != nil && !m.weak && !unclean(esc) {
		return
	}
	for _, shape := range rt.tails {
		n := shape.n
		if !shape.mayMatch(esc) {
			continue
		}
		cut, ok := tailCut(esc, n)
		if !ok {
			continue
		}
		// The cut as echo reads it: its dot and empty segments, values
		// of a parameter before the last ("/a/../x/y" for "/a/:b/:c"),
		// are not cleaned away.
		cut = literalPath(cut)
		path, err := url.PathUnescape(cut)
		if err != nil {
			continue
		}
		c := *r
		u := *r.URL
		u.Path, u.RawPath = path, cut
		c.URL = &u
		c.Method = method
		c.Host = canonicalHost(r.Host) // as a pattern names it
		// Only the routes ending in a parameter are in tailMux: a
		// literal route at the cut ("GET /users/me") does not hide the
		// parameter's, which echo serves the deeper path by.
		if _, p := rt.tailMux.Handler(&c); p != "" {
			if e := rt.byPattern[p]; e != nil && e.tail == n {
				ch.add(e.rte)
			}
		}
	}
}

// tailPlaceholder stands for the value of a route's last parameter in
// tailCut's result: a segment that only a wildcard matches in tailMux,
// whose patterns all end in one.
const tailPlaceholder = "_"

// tailCut returns the escaped path p cut after its first n-1 segments,
// with tailPlaceholder for the rest, when that rest is not empty ("/users/"
// then anything: "1/2", "/1", ".", "me/x"): what a route of n segments
// ending in a parameter takes there. False when p has fewer segments, or
// does not start with a slash.
func tailCut(p string, n int) (string, bool) {
	if !strings.HasPrefix(p, "/") {
		return "", false // "" (an absolute-form request line's), "*"
	}
	i := 0 // the index of the slash before segment k
	for range n - 1 {
		j := strings.IndexByte(p[i+1:], '/')
		if j < 0 {
			return "", false
		}
		i += j + 1
	}
	if i+1 >= len(p) {
		return "", false // nothing for the parameter
	}
	return p[:i+1] + tailPlaceholder, true
}
