package middleware

import (
	"net/http"
	"net/url"
	"strings"
)

// literalRoute returns the route that ServeMux matches r's path to as
// routers read it when the router is not known (see globsUnrouted): as it
// comes, uncleaned, escaped (echo, chi) or decoded (gin, whose
// UseRawPath is off by default: "/users/a%2Fb/x" is "/users/a/b/x" to
// it). gin, echo and chi serve a dot segment or an empty one as a
// parameter's value ("/users/../x" by "/users/:id/x", "/users//x" and
// "/users/." by chi's "/users/{id}/x" and "/users/{id}"), where ServeMux
// cleans the path into another route's, or none. Each such segment is
// read as one only a wildcard matches (see literalPath), and the host as
// a pattern names it (see canonicalHost); the first route a reading
// matches itself (not a subtree holding it) is returned, for the caller
// to charge with the others, all or nothing. nil for none, for a reading
// ServeMux matches already (the escaped path, clean), for a CONNECT
// (whose path it does not clean), and for a reading of more segments than
// any pattern matching one path has: only a subtree could hold it. The
// trade-off: behind a ServeMux subtree that cleans the path, or a router
// reading the escaped path, such a request is counted on that route too.
func (rt *Routes) literalRoute(r *http.Request, method string) *route {
	if r.URL == nil || method == http.MethodConnect {
		return nil
	}
	// The cheap test first (subtreePattern allocates), on the path itself
	// when it came without escapes: escaping adds no dot or slash.
	if r.URL.RawPath == "" && !unclean(r.URL.Path) || r.Pattern != "" && !subtreePattern(r.Pattern) {
		return nil
	}
	esc := r.URL.EscapedPath()
	readings := [2]string{esc}
	if r.URL.RawPath != "" {
		// The decoded path, escaped as it would come without its
		// escapes ("%2F" a slash).
		readings[1] = (&url.URL{Path: r.URL.Path}).EscapedPath()
	}
	for i, p := range readings {
		if p == "" || i > 0 && p == esc || i == 0 && !unclean(p) || deeper(p, rt.depth) {
			continue
		}
		lit := literalPath(p)
		path, err := url.PathUnescape(lit)
		if err != nil {
			continue
		}
		c := *r
		u := *r.URL
		u.Path, u.RawPath = path, lit
		c.URL = &u
		c.Method = method
		c.Host = canonicalHost(r.Host)
		if m := rt.muxMatch(&c); m.e != nil && !m.weak {
			return m.e.rte
		}
	}
	return nil
}

// unclean reports whether the escaped path p holds a segment literalPath
// escapes: a dot segment or an empty one.
func unclean(p string) bool {
	return strings.HasPrefix(p, "/") && (strings.Contains(p, "//") || strings.Contains(p, "/."))
}

// deeper reports whether the path p has more than n slashes, counting no
// further.
func deeper(p string, n int) bool {
	for i := 0; i <= n; i++ {
		j := strings.IndexByte(p, '/')
		if j < 0 {
			return false
		}
		p = p[j+1:]
	}
	return true
}

// literalPath returns the escaped path p with each dot segment, and each
// empty one but the leading slash's and a trailing slash's, escaped
// ("/users/%2E%2E/x" for "/users/../x", "/users/%2E/x" for "/users//x"):
// ServeMux neither cleans nor resolves such a segment, and matches it by
// a wildcard alone, as gin, echo and chi take it for a parameter's value.
// One pass, one allocation.
func literalPath(p string) string {
	if !unclean(p) {
		return p
	}
	var b strings.Builder
	b.Grow(len(p) + len(p)/2)
	for rest := p[1:]; ; {
		s, after, more := strings.Cut(rest, "/")
		b.WriteByte('/')
		switch {
		case s == ".", s == "" && more:
			b.WriteString("%2E")
		case s == "..":
			b.WriteString("%2E%2E")
		default:
			b.WriteString(s)
		}
		if !more {
			return b.String()
		}
		rest = after
	}
}
