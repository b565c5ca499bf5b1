package routepath

import (
	"strconv"
	"strings"
)

// MuxPath returns the path of a route template, in the syntax of a
// ServeMux pattern or of chi, gin or echo ("/users/{id}",
// "/users/{id:[0-9]+}", "/users/:id", "/static/*", "/static/*filepath"),
// as the path of a ServeMux pattern matching at least the same requests:
// each segment holding a parameter becomes a wildcard named by its
// position ("{p1}"; a segment mixing text and parameters, which ServeMux
// cannot express, matches whole), and a catch-all ("*", "*name",
// "{name...}") a "{pN...}" wildcard that ends the path. "{$}", literal
// segments and malformed ones (unbalanced braces, for ServeMux to refuse)
// are kept. A host before the path is kept as it is.
func MuxPath(p string) string {
	host, path := "", p
	if i := strings.IndexByte(p, '/'); i > 0 {
		host, path = p[:i], p[i:]
	}
	segs := strings.Split(path, "/")
	n := 0
	for i := 0; i < len(segs); i++ {
		s := segs[i]
		switch {
		case s == "{$}" || !param(s):
		case s[0] == '*' || strings.HasPrefix(s, "{") && strings.HasSuffix(s, "...}") && strings.Count(s, "{") == 1:
			n++
			segs[i] = "{p" + strconv.Itoa(n) + "...}"
			segs = segs[:i+1] // a catch-all matches the rest
		default:
			n++
			segs[i] = "{p" + strconv.Itoa(n) + "}"
		}
	}
	return host + strings.Join(segs, "/")
}

// param reports whether the segment s holds a parameter: ":name", "*" or
// "*name", or balanced braces ("{id}", "{id:[0-9]+}", "{name}.{ext}"),
// nested as chi reads them, counting braces to find a parameter's end
// ("{id:[0-9]{2}}" is one parameter). Anything else (unbalanced braces)
// is left for ServeMux to refuse.
func param(s string) bool {
	switch {
	case s == "":
		return false
	case s[0] == '*' || len(s) > 1 && s[0] == ':':
		return true
	}
	depth, braces := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			if depth == 0 {
				return false
			}
			if depth--; depth == 0 {
				braces++
			}
		}
	}
	return depth == 0 && braces > 0
}
