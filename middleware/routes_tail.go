package middleware

import (
	"net/http"
	"net/url"
	"slices"
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

// addTail notes that a route of n path segments (see tailSegments) was
// registered in the ServeMux.
func (rt *Routes) addTail(n int) {
	if n > 0 && !slices.Contains(rt.tails, n) {
		rt.tails = append(rt.tails, n)
	}
}

// tailRoutes charges on ch the routes ending in a gin or echo parameter
// ("GET /users/:id") that echo serves r by when the router is not known
// (see globsUnrouted): echo's last parameter takes the rest of a path no
// route continues ("/users/1/2"). Only a path that no pattern matches
// itself (none, or a subtree holding it) is tried, so that gin, which
// serves such a path by no route, costs an over-charge of its 404s
// alone: its first segments, as many as such a route's, matched exactly
// by that route.
func (rt *Routes) tailRoutes(ch *charge, r *http.Request, method string) {
	if len(rt.tails) == 0 || r.URL == nil || r.Pattern != "" && !subtreePattern(r.Pattern) {
		return
	}
	if m := rt.muxMatch(r); m.e != nil && !m.weak {
		return
	}
	esc := r.URL.EscapedPath()
	for _, n := range rt.tails {
		cut, ok := firstSegments(esc, n)
		if !ok {
			continue
		}
		path, err := url.PathUnescape(cut)
		if err != nil {
			continue
		}
		c := *r
		u := *r.URL
		u.Path, u.RawPath = path, cut
		c.URL = &u
		c.Method = method
		if m := rt.muxMatch(&c); m.e != nil && !m.weak && m.e.tail == n {
			ch.add(m.e.rte)
		}
	}
}

// firstSegments returns the escaped path p cut to its first n segments,
// when it has more than n (a slash after them) and the last of those is
// not empty.
func firstSegments(p string, n int) (string, bool) {
	i := 0
	for range n {
		j := strings.IndexByte(p[i+1:], '/')
		if j < 0 {
			return "", false
		}
		i += j + 1
	}
	return p[:i], p[i-1] != '/'
}
